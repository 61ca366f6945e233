/**
 * A 52-bit hash of a string, as a plain number (exact in a double, so it sorts and compares in a
 * `Float64Array`): two 32-bit multiplicative lanes over the UTF-16 code units, mixed at the end.
 * Not cryptographic: it names members compactly (8 bytes each) and tells whether a read changed.
 * Two different strings collide with a probability near 2⁻⁵²; at 100,000 members, about 10⁻⁶
 * that any two do. Pure.
 */
export function hash52(text: string): number {
  let a = 0x9e3779b9 ^ text.length;
  let b = 0x85ebca6b ^ text.length;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x5bd1e995);
    b = Math.imul(b ^ c, 0x1b873593);
    a ^= a >>> 15;
    b ^= b >>> 13;
  }
  a = Math.imul(a ^ (b >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (a >>> 13), 0xc2b2ae35);
  a ^= a >>> 16;
  b ^= b >>> 16;
  // 32 bits of one lane and 20 of the other.
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}

/** {@link hash52} as 13 hexadecimal digits, the stored form. */
export function hash52Hex(text: string): string {
  return hash52(text).toString(16).padStart(13, '0');
}

/**
 * A set of 52-bit keys in a sorted typed array: 8 bytes per key, a binary search per lookup, and a
 * flag per key to mark the ones seen. What the full sync keeps of every member of a campaign
 * instead of the members themselves.
 */
export class KeySet {
  private readonly keys: Float64Array;
  private readonly values: Float64Array;
  private readonly marks: Uint8Array;

  /** Keys and their values, in any order (parallel arrays). */
  constructor(keys: Float64Array, values: Float64Array) {
    // The keys sorted by the typed array's own numeric sort, then each value put at its key's place
    // (equal keys keep the order given): a comparator in JavaScript would box a number per comparison.
    const n = keys.length;
    this.keys = keys.slice().sort();
    this.values = new Float64Array(n);
    const placed = new Uint8Array(n);
    for (let from = 0; from < n; from += 1) {
      let to = this.firstAtLeast(keys[from]!);
      while (placed[to] === 1) to += 1;
      placed[to] = 1;
      this.values[to] = values[from]!;
    }
    this.marks = new Uint8Array(n);
  }

  /** The first place whose key is not below `key` (the keys are sorted). */
  private firstAtLeast(key: number): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get size(): number {
    return this.keys.length;
  }

  /** Bytes held: what the set costs in memory. */
  get bytes(): number {
    return this.keys.byteLength + this.values.byteLength + this.marks.byteLength;
  }

  private find(key: number): number {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.keys[mid]!;
      if (k === key) return mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  /** The value stored with `key`, or undefined when the key is not in the set. */
  value(key: number): number | undefined {
    const i = this.find(key);
    return i >= 0 ? this.values[i] : undefined;
  }

  /** Marks `key` seen; answers false when the key is not in the set or was marked already. */
  mark(key: number): boolean {
    const i = this.find(key);
    if (i < 0 || this.marks[i] === 1) return false;
    this.marks[i] = 1;
    return true;
  }

  marked(key: number): boolean {
    const i = this.find(key);
    return i >= 0 && this.marks[i] === 1;
  }

  /** Keys not marked. */
  unmarked(): number {
    let n = 0;
    for (let i = 0; i < this.marks.length; i += 1) if (this.marks[i] === 0) n += 1;
    return n;
  }
}

/** Grows typed arrays of key and value pairs, then freezes them into a {@link KeySet}. */
export function keySetBuilder() {
  let keys = new Float64Array(1024);
  let values = new Float64Array(1024);
  let n = 0;
  return {
    add(key: number, value: number): void {
      if (n === keys.length) {
        const k = new Float64Array(keys.length * 2);
        k.set(keys);
        keys = k;
        const v = new Float64Array(values.length * 2);
        v.set(values);
        values = v;
      }
      keys[n] = key;
      values[n] = value;
      n += 1;
    },
    build(): KeySet {
      return new KeySet(keys.subarray(0, n), values.subarray(0, n));
    },
  };
}
