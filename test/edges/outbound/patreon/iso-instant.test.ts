import { isoInstant } from '../../../../src/edges/outbound/patreon/iso-instant';

/** What every date of Patreon's was read as before the text fast path: the answer it must keep. */
function throughDate(text: string): string | null {
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** A seeded generator (the tests' randomness is fixed). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pad = (v: number, width = 2) => String(v).padStart(width, '0');

describe('isoInstant', () => {
  it("reads Patreon's and the spec's shapes as toISOString writes them", () => {
    expect(isoInstant('2017-12-01T16:33:48.000+00:00')).toBe('2017-12-01T16:33:48.000Z');
    expect(isoInstant('2017-12-01T16:33:48+00:00')).toBe('2017-12-01T16:33:48.000Z');
    expect(isoInstant('2017-12-01T16:33:48.123Z')).toBe('2017-12-01T16:33:48.123Z');
    expect(isoInstant('2017-12-01T16:33:48Z')).toBe('2017-12-01T16:33:48.000Z');
  });

  it('rolls impossible days and hours over as Date.parse does, and reads no non-date', () => {
    expect(isoInstant('2021-02-30T00:00:00.000+00:00')).toBe('2021-03-02T00:00:00.000Z');
    expect(isoInstant('2021-01-01T24:00:00.000Z')).toBe('2021-01-02T00:00:00.000Z');
    expect(isoInstant('2021-13-01T00:00:00.000Z')).toBeNull();
    expect(isoInstant('2021-01-01T00:00:60.000Z')).toBeNull();
    expect(isoInstant('not a date at all, 29 chars.')).toBeNull();
    expect(isoInstant('')).toBeNull();
  });

  it('answers exactly what Date.parse and toISOString answer, for 200,000 dates near and off the fast shapes', () => {
    const random = seeded(23);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const zones = ['Z', '+00:00', '+01:00', '-00:00', 'z', '+0000', ''];
    const fractions = ['', '.000', '.123', '.5', '.123456', '.', '.12a'];
    const differences: string[] = [];
    for (let i = 0; i < 200_000; i += 1) {
      const year = pick([pad(Math.floor(random() * 10_000), 4), '1970', '2026', '+02026', '20x6']);
      const month = pick([pad(Math.floor(random() * 14)), '1', '02']);
      const day = pick([pad(Math.floor(random() * 33)), '28', '29', '3']);
      const hour = pick([pad(Math.floor(random() * 26)), '23', '24']);
      const minute = pick([pad(Math.floor(random() * 62)), '59', '60']);
      const second = pick([pad(Math.floor(random() * 62)), '59', '60']);
      const sep = pick(['T', 'T', 'T', ' ', 't']);
      let text = `${year}-${month}-${day}${sep}${hour}:${minute}:${second}${pick(fractions)}${pick(zones)}`;
      // Now and then a character anywhere becomes another.
      if (random() < 0.1) {
        const at = Math.floor(random() * text.length);
        text = text.slice(0, at) + pick(['-', ':', 'T', 'Z', '0', '9', '/', '+']) + text.slice(at + 1);
      }
      if (isoInstant(text) !== throughDate(text)) differences.push(text);
    }
    expect(differences.slice(0, 10)).toEqual([]);
  });
});
