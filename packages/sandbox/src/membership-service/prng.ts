/**
 * A small seeded PRNG (mulberry32) so generated data is the same on every run. Never Math.random:
 * a failing test must be reproducible from its seed.
 */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** A raw 32-bit unsigned value. */
  uint32(): number;
}

export function createPrng(seed: number | string): Prng {
  let state = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
  const uint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const next = (): number => uint32() / 4294967296;
  return {
    next,
    uint32,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}

/** FNV-1a over UTF-16 code units: turns a string seed into a 32-bit state. */
export function hashString(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function hex8(word: number): string {
  return (word >>> 0).toString(16).padStart(8, '0');
}

/** A version-4-shaped UUID drawn from the PRNG. */
export function prngUuid(prng: Prng): string {
  const a = hex8(prng.uint32());
  const b = hex8(prng.uint32());
  const c = hex8(prng.uint32());
  const d = hex8(prng.uint32());
  const variant = ((parseInt(c[0] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
}

/** An 18-digit Discord-snowflake-shaped id drawn from the PRNG. */
export function prngSnowflake(prng: Prng): string {
  const high = 100_000_000 + (prng.uint32() % 900_000_000);
  const low = prng.uint32() % 1_000_000_000;
  return `${high}${String(low).padStart(9, '0')}`;
}

/** Picks an index by weight. */
export function pickWeighted(prng: Prng, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let roll = prng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    roll -= weights[i] ?? 0;
    if (roll < 0) return i;
  }
  return weights.length - 1;
}
