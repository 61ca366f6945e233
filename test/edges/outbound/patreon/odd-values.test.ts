import { createManualClock } from '@tierlink/sandbox';
import type { KeyValueStore } from '../../../../src/edges/outbound/patreon';
import { KEPT_MS, MAX_KINDS, createOddValueLog } from '../../../../src/edges/outbound/patreon/odd-values';
import { silentLogger } from '../../../../src/shared/logger';

function memoryStore(): KeyValueStore & { writes: number } {
  const values = new Map<string, unknown>();
  const store = {
    writes: 0,
    get: async <T>(key: string) => (values.get(key) as T | undefined) ?? null,
    set: async (key: string, value: unknown) => {
      store.writes += 1;
      values.set(key, JSON.parse(JSON.stringify(value)));
    },
  };
  return store;
}

test('odd values are kept per kind with how often and since when, shared through the store with another process, and forgotten a week after the last', async () => {
  const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const store = memoryStore();
  const log = createOddValueLog({ store, clock, logger: silentLogger });
  log.note({ type: 'tier', id: '7', attribute: 'title', found: 'null' });
  log.note({ type: 'tier', id: '8', attribute: 'title', found: 'null' });
  log.note({ type: 'user', id: '9', attribute: 'full_name', found: 'missing' });
  await log.flush();
  // A second process (the CLI sync) notes the same kind and sees both.
  const other = createOddValueLog({ store, clock, logger: silentLogger });
  clock.advance(60_000);
  other.note({ type: 'tier', id: '8', attribute: 'title', found: 'null' });
  await other.flush();
  const listed = await createOddValueLog({ store, clock, logger: silentLogger }).list();
  expect(listed).toEqual([
    {
      type: 'tier',
      attribute: 'title',
      found: 'null',
      exampleId: '8',
      count: 3,
      firstSeen: '2026-11-20T12:00:00.000Z',
      lastSeen: '2026-11-20T12:01:00.000Z',
    },
    {
      type: 'user',
      attribute: 'full_name',
      found: 'missing',
      exampleId: '9',
      count: 1,
      firstSeen: '2026-11-20T12:00:00.000Z',
      lastSeen: '2026-11-20T12:00:00.000Z',
    },
  ]);
  clock.advance(KEPT_MS + 1);
  expect(await log.list()).toEqual([]);
});

test('repeats of a known kind are written at most once a minute, and at most 20 kinds are kept', async () => {
  const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const store = memoryStore();
  const log = createOddValueLog({ store, clock, logger: silentLogger });
  for (let i = 0; i < 1_000; i++) log.note({ type: 'tier', id: String(i), attribute: 'title', found: 'null' });
  await log.flush();
  expect(store.writes).toBe(2);
  for (let i = 0; i < MAX_KINDS + 5; i++) log.note({ type: 'tier', id: '1', attribute: `odd${i}`, found: 'null' });
  await log.flush();
  expect(await log.list()).toHaveLength(MAX_KINDS);
});
