import { KeySet, hash52, keySetBuilder } from '../../src/core/hash52';

/** A seeded generator (the tests' randomness is fixed). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('KeySet', () => {
  it('finds every key given in any order with its own value, and no other key', () => {
    const random = seeded(7);
    const builder = keySetBuilder();
    const given = new Map<number, number>();
    for (let i = 0; i < 5000; i += 1) {
      const key = hash52(`member-${Math.floor(random() * 1e9)}-${i}`);
      given.set(key, i);
      builder.add(key, i);
    }
    const set = builder.build();
    expect(set.size).toBe(given.size);
    for (const [key, value] of given) {
      expect(set.has(key)).toBe(true);
      expect(set.value(key)).toBe(value);
    }
    for (let i = 0; i < 200; i += 1) {
      const absent = hash52(`someone else ${i}`);
      expect(set.has(absent)).toBe(given.has(absent));
      expect(set.value(absent)).toBe(given.get(absent));
    }
  });

  it('keeps keys at the ends of the 52-bit range, zero and the -1 "none stored" value apart', () => {
    const keys = new Float64Array([2 ** 52 - 1, 0, 12345, 2 ** 40]);
    const values = new Float64Array([1, -1, 3, 4]);
    const set = new KeySet(keys, values);
    expect([2 ** 52 - 1, 0, 12345, 2 ** 40].map((k) => set.value(k))).toEqual([1, -1, 3, 4]);
    expect(set.has(1)).toBe(false);
  });

  it('holds a key given twice in two places, each marked once', () => {
    const set = new KeySet(new Float64Array([9, 5, 9, 1]), new Float64Array([90, 50, 91, 10]));
    expect(set.size).toBe(4);
    expect([90, 91]).toContain(set.value(9));
    expect(set.value(5)).toBe(50);
    expect(set.unmarked()).toBe(4);
    expect(set.mark(9)).toBe(true);
    expect(set.mark(9)).toBe(false);
    expect(set.mark(5)).toBe(true);
    expect(set.marked(5)).toBe(true);
    expect(set.marked(1)).toBe(false);
    expect(set.unmarked()).toBe(2);
  });
});
