import { assignShards, nextPlan, sharesOf } from '../../src/core/shard-assignment';

const held = (entries: Array<[number, string]>) => new Map(entries);
const none = new Set<number>();

describe('sharesOf', () => {
  test.each([
    [['a'], 1, [1]],
    [['a', 'b'], 1, [1, 0]],
    [['a', 'b', 'c'], 2, [1, 1, 0]],
    [['a', 'b', 'c'], 4, [2, 1, 1]],
    [['a', 'b', 'c'], 9, [3, 3, 3]],
    [['a', 'b'], 5, [3, 2]],
  ])('%j over %i shards: %j (never more than one apart, the oldest first)', (members, shards, expected) => {
    const shares = sharesOf(members, shards);
    expect(members.map((m) => shares.get(m))).toEqual(expected);
    expect(expected.reduce((a, b) => a + b, 0)).toBe(shards);
  });
});

describe('assignShards', () => {
  test('alone: takes every free shard, lowest first', () => {
    expect(assignShards({ me: 'a', members: ['a'], shardCount: 3, held: held([]), settled: false, stranded: none })).toEqual({
      claim: [0, 1, 2],
      release: [],
    });
  });

  test('a newcomer takes nothing held; the holder gives its highest shard away only once settled, one at a time', () => {
    const state = {
      members: ['a', 'b'],
      shardCount: 4,
      held: held([
        [0, 'a'],
        [1, 'a'],
        [2, 'a'],
        [3, 'a'],
      ]),
      stranded: none,
    };
    expect(assignShards({ ...state, me: 'b', settled: true })).toEqual({ claim: [], release: [] });
    expect(assignShards({ ...state, me: 'a', settled: false })).toEqual({ claim: [], release: [] });
    expect(assignShards({ ...state, me: 'a', settled: true })).toEqual({ claim: [], release: [3] });
    // The freed shard goes to the one short of its share, not back to the one that gave it; the
    // next round gives the next one.
    const after = {
      ...state,
      held: held([
        [0, 'a'],
        [1, 'a'],
        [2, 'a'],
      ]),
    };
    expect(assignShards({ ...after, me: 'b', settled: true })).toEqual({ claim: [3], release: [] });
    expect(assignShards({ ...after, me: 'a', settled: true })).toEqual({ claim: [], release: [2] });
    const even = {
      ...state,
      held: held([
        [0, 'a'],
        [1, 'a'],
        [2, 'b'],
        [3, 'b'],
      ]),
    };
    for (const me of ['a', 'b']) expect(assignShards({ ...even, me, settled: true })).toEqual({ claim: [], release: [] });
  });

  test('a fair spread stays put: nobody gives or takes', () => {
    const state = {
      members: ['a', 'b', 'c'],
      shardCount: 4,
      held: held([
        [0, 'a'],
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]),
      stranded: none,
    };
    for (const me of ['a', 'b', 'c']) expect(assignShards({ ...state, me, settled: true })).toEqual({ claim: [], release: [] });
  });

  test('the shards of an instance that left are taken by the ones under their share', () => {
    // c died: its leases expired, so its shard is free, and the list is a and b.
    const state = {
      members: ['a', 'b'],
      shardCount: 3,
      held: held([
        [0, 'a'],
        [1, 'b'],
      ]),
      stranded: none,
      settled: false,
    };
    expect(assignShards({ ...state, me: 'a' })).toEqual({ claim: [2], release: [] });
    expect(assignShards({ ...state, me: 'b' })).toEqual({ claim: [], release: [] });
  });

  test('a stranded shard is taken by anyone, above its share; an avoided one by nobody here', () => {
    const state = { members: ['a', 'b'], shardCount: 2, held: held([[0, 'a']]), settled: true };
    expect(assignShards({ ...state, me: 'a', stranded: new Set([1]) })).toEqual({ claim: [1], release: [] });
    expect(assignShards({ ...state, me: 'b', stranded: none, avoid: new Set([1]) })).toEqual({ claim: [], release: [] });
  });

  test('an instance not in the list (stopping) takes nothing', () => {
    expect(assignShards({ me: 'z', members: ['a'], shardCount: 2, held: held([]), settled: true, stranded: none })).toEqual({
      claim: [],
      release: [],
    });
  });
});

describe('nextPlan', () => {
  const plan = (shardCount: number, fixed = false, maxConcurrency = 1) => ({ shardCount, maxConcurrency, fixed });

  test('the first plan is the proposal; an unchanged one is the stored object itself', () => {
    expect(nextPlan(null, plan(2))).toEqual(plan(2));
    const stored = plan(2);
    expect(nextPlan(stored, plan(2))).toBe(stored);
  });

  test('a recommendation only grows a recommended count', () => {
    expect(nextPlan(plan(2), plan(3))).toEqual(plan(3));
    const stored = plan(3);
    expect(nextPlan(stored, plan(2))).toBe(stored);
  });

  test('an operator’s count wins over a recommendation and over an older operator’s count', () => {
    expect(nextPlan(plan(4), plan(2, true))).toEqual(plan(2, true));
    expect(nextPlan(plan(2, true), plan(6, true))).toEqual(plan(6, true));
    const fixed = plan(2, true);
    expect(nextPlan(fixed, plan(9))).toBe(fixed);
  });

  test('max_concurrency is Discord’s fact: the newest reading wins, the count stays', () => {
    expect(nextPlan(plan(3), plan(2, false, 16))).toEqual(plan(3, false, 16));
    expect(nextPlan(plan(2, true), plan(9, false, 16))).toEqual(plan(2, true, 16));
  });
});
