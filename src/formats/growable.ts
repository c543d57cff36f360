/** An append-only Float64 column: raw samples arrive one line at a time, with no JS object per row. */
export class Float64Column {
  private data: Float64Array;
  length = 0;
  constructor(initialCapacity = 1024) {
    this.data = new Float64Array(initialCapacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  /** The filled part; the column must not be pushed to afterwards. */
  finish(): Float64Array {
    return this.data.slice(0, this.length);
  }
}
