import { MemberRoleTable, snowflakeHalves } from '../../../../src/edges/outbound/discord/member-role-table';

const id = (n: number) => (100_000_000_000_000_000n + BigInt(n) * 4_194_304n).toString();

describe('the member-role table', () => {
  test('a snowflake splits into its 32-bit halves; anything else is refused', () => {
    expect(snowflakeHalves('18446744073709551615')).toEqual([0xffffffff, 0xffffffff]);
    expect(snowflakeHalves(String(2n ** 32n + 5n))).toEqual([1, 5]);
    expect(snowflakeHalves('18446744073709551616')).toBeNull();
    expect(snowflakeHalves('0')).toBeNull();
    expect(snowflakeHalves('12a')).toBeNull();
    expect(snowflakeHalves('')).toBeNull();
  });

  test('keeps each member, a known non-member, and nothing for an unknown user', () => {
    const table = new MemberRoleTable();
    expect(table.set(id(1), ['r2', 'r1', 'r2'])).toBe(true);
    table.set(id(2), null);
    expect(table.get(id(1))).toEqual(['r1', 'r2']);
    expect(table.get(id(2))).toBeNull();
    expect(table.get(id(3))).toBeUndefined();
    expect(table.set('not-a-snowflake', ['r1'])).toBe(false);
    expect(table.get('not-a-snowflake')).toBeUndefined();
    expect(table.size).toBe(2);
  });

  test('members with the same roles share one interned set, and a set nobody holds is freed', () => {
    const table = new MemberRoleTable();
    table.set(id(1), ['a', 'b']);
    table.set(id(2), ['b', 'a']);
    expect(table.get(id(1))).toBe(table.get(id(2)));
    const bytesWithTwoSets = (() => {
      table.set(id(3), ['c']);
      return table.bytes();
    })();
    table.set(id(3), ['a', 'b']);
    expect(table.bytes()).toBeLessThan(bytesWithTwoSets);
    table.set(id(3), ['d']);
    expect(table.get(id(3))).toEqual(['d']);
  });

  test('role changes apply to known members only', () => {
    const table = new MemberRoleTable();
    table.set(id(1), ['a']);
    table.set(id(2), null);
    expect(table.change(id(1), 'b', 'add')).toBe(true);
    expect(table.get(id(1))).toEqual(['a', 'b']);
    expect(table.change(id(1), 'a', 'remove')).toBe(true);
    expect(table.get(id(1))).toEqual(['b']);
    expect(table.change(id(2), 'b', 'add')).toBe(false);
    expect(table.change(id(3), 'b', 'add')).toBe(false);
    expect(table.get(id(3))).toBeUndefined();
  });

  test('a deleted role leaves every member who held it', () => {
    const table = new MemberRoleTable();
    table.set(id(1), ['gold', 'staff']);
    table.set(id(2), ['gold']);
    table.set(id(3), ['staff']);
    const before = table.generation;
    table.dropRole('gold');
    expect(table.get(id(1))).toEqual(['staff']);
    expect(table.get(id(2))).toEqual([]);
    expect(table.get(id(3))).toEqual(['staff']);
    expect(table.get(id(1))).toBe(table.get(id(3)));
    expect(table.stampOf(id(1))).toBeGreaterThan(before);
    expect(table.stampOf(id(3))).toBeLessThanOrEqual(before);
  });

  test('every write stamps the entry above the generation before it', () => {
    const table = new MemberRoleTable();
    table.set(id(1), ['a']);
    const seen = table.generation;
    expect(table.stampOf(id(1))).toBe(seen);
    table.set(id(2), ['a']);
    expect(table.stampOf(id(2))).toBeGreaterThan(seen);
    expect(table.stampOf(id(9))).toBe(0);
  });

  test('thousands of members: growth, deletion by backward shift and a sweep keep every lookup right', () => {
    const table = new MemberRoleTable();
    const n = 20_000;
    for (let i = 0; i < n; i++) table.set(id(i), i % 3 === 0 ? null : [`r${i % 7}`]);
    expect(table.size).toBe(n);
    const deleted = [...Array(n / 2).keys()].map((k) => table.delete(id(2 * k)));
    expect(deleted.every(Boolean)).toBe(true);
    expect(table.delete(id(0))).toBe(false);
    const all = [...Array(n).keys()];
    expect(all.map((i) => table.get(id(i)))).toEqual(all.map((i) => (i % 2 === 0 ? undefined : i % 3 === 0 ? null : [`r${i % 7}`])));
    const mark = table.generation;
    for (let i = 1; i < n; i += 4) table.set(id(i), ['fresh']);
    const swept = table.sweep(mark);
    // Members written before the mark go; known non-members and fresher entries stay.
    const odd = all.filter((i) => i % 2 === 1);
    expect(odd.map((i) => table.get(id(i)))).toEqual(odd.map((i) => ((i - 1) % 4 === 0 ? ['fresh'] : i % 3 === 0 ? null : undefined)));
    expect(swept).toBe([...Array(n).keys()].filter((i) => i % 2 === 1 && (i - 1) % 4 !== 0 && i % 3 !== 0).length);
  });

  test('100,000 members with a few role combinations take about 20 bytes a slot', () => {
    const table = new MemberRoleTable();
    for (let i = 0; i < 100_000; i++) table.set(id(i), i % 10 === 0 ? ['gold', 'staff'] : i % 4 === 0 ? ['silver'] : []);
    // 131,072 slots (load ≤ 0.8) × 20 bytes, plus three interned sets.
    expect(table.bytes()).toBeLessThan(131_072 * 20 + 1_000);
  });
});
