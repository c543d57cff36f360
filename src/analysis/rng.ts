/**
 * Deterministic random numbers for resampling: every comparison of the same data draws the same
 * resamples, so the app and the CLI print the same intervals.
 */

/** xoshiro128** (Blackman & Vigna): 32-bit, fast, good enough for resampling; seeded by splitmix32. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A uniform integer in [0, n), n ≤ 2^21 (the product stays an exact double). */
  below(n: number): number {
    return Math.floor((this.nextUint32() * n) / 4294967296);
  }

  /** A uniform number in [0, 1). */
  uniform(): number {
    return this.nextUint32() / 4294967296;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A 32-bit seed from a base seed and some small integers (which side, which run). */
export function deriveSeed(base: number, ...parts: number[]): number {
  let h = base >>> 0;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x9e3779b1) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
  }
  return h;
}
