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

/**
 * Rows of many series in arrival order, split per series only at the end. A file can name a new
 * series on every line (one op name per row): per-series columns would cost two typed arrays
 * (hundreds of bytes) for each such 10-byte row, these three columns cost 24 bytes a row whatever
 * the number of series.
 */
export class SeriesRows {
  private readonly series = new Float64Column();
  private readonly time = new Float64Column();
  private readonly value = new Float64Column();

  push(series: number, time: number, value: number): void {
    this.series.push(series);
    this.time.push(time);
    this.value.push(value);
  }

  /** Times and values of series 0..count-1, each in arrival order. No push afterwards. */
  split(count: number): { time: Float64Array; value: Float64Array }[] {
    const series = this.series.finish();
    const time = this.time.finish();
    const value = this.value.finish();
    const sizes = new Int32Array(count);
    for (let i = 0; i < series.length; i++) {
      const k = series[i]!;
      sizes[k] = sizes[k]! + 1;
    }
    const out = Array.from(sizes, (n) => ({ time: new Float64Array(n), value: new Float64Array(n) }));
    const filled = new Int32Array(count);
    for (let i = 0; i < series.length; i++) {
      const k = series[i]!;
      const o = out[k]!;
      const j = filled[k]!;
      filled[k] = j + 1;
      o.time[j] = time[i]!;
      o.value[j] = value[i]!;
    }
    return out;
  }
}
