import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/edges/outbound/store/database';
import {
  type InboxDelivery,
  REPLAY_WINDOW_MS,
  createWebhookRepository,
} from '../../../src/edges/outbound/store/repositories/webhook-repository';
import { createSecretBox } from '../../../src/edges/outbound/store/secret-box';
import { createInboxWriter } from '../../../src/app/webhooks/inbox-writer';
import { SECRET_KEY } from '../../support/world';
import { type TestDatabase, createTestDatabase } from '../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const at = new Date('2026-11-20T12:00:00Z');
const hash = (body: string) => createHash('sha256').update(body).digest('hex');
const delivery = (n: number, body = `{"n":${n}}`, receivedAt = at): InboxDelivery => ({
  receivedAt,
  trigger: 'members:update',
  campaignId: 'c1',
  body,
  bodyHash: hash(body),
});

function countingStore() {
  const repo = createWebhookRepository(t.database.db, createSecretBox(SECRET_KEY));
  const batches: number[] = [];
  return {
    repo,
    batches,
    store: {
      insertDeliveries: (rows: readonly InboxDelivery[]) => {
        batches.push(rows.length);
        return repo.insertDeliveries(rows);
      },
    },
  };
}

test('deliveries that arrive together share one INSERT, and each gets the id of its own row', async () => {
  const { repo, store, batches } = countingStore();
  const writer = createInboxWriter(store);
  const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => writer.insertDelivery(delivery(n))));
  expect(batches).toEqual([20]);
  for (const [n, id] of ids.entries()) expect((await repo.delivery(id!))?.body).toBe(`{"n":${n}}`);
  expect(await repo.deliveries()).toHaveLength(20);
});

test('batches are capped, and a lone delivery is written on its own', async () => {
  const { store, batches } = countingStore();
  const writer = createInboxWriter(store, { maxBatch: 8, maxInFlight: 1 });
  await Promise.all(Array.from({ length: 20 }, (_, n) => writer.insertDelivery(delivery(n))));
  expect(batches).toEqual([8, 8, 4]);
  await writer.insertDelivery(delivery(99));
  expect(batches).toEqual([8, 8, 4, 1]);
});

test('a row the database refuses fails only its own delivery; the rest of its batch is stored', async () => {
  const { repo, store } = countingStore();
  const writer = createInboxWriter(store);
  const results = await Promise.allSettled([
    writer.insertDelivery(delivery(1)),
    writer.insertDelivery(delivery(2, 'nul \u0000 byte')),
    writer.insertDelivery(delivery(3)),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((await repo.deliveries()).map((r) => r.body)).toEqual(['{"n":1}', '{"n":3}']);
});

test('a replay adds no row: the same body again, in the same batch or later, answers the row that holds it', async () => {
  const { repo, store } = countingStore();
  const writer = createInboxWriter(store);
  const together = await Promise.all([
    writer.insertDelivery(delivery(1)),
    writer.insertDelivery(delivery(1)),
    writer.insertDelivery(delivery(2)),
  ]);
  expect(together[0]).toEqual(expect.any(Number));
  expect(together[1]).toBe(together[0]);
  expect(together[2]).toEqual(expect.any(Number));
  expect(await writer.insertDelivery(delivery(1, undefined, new Date(at.getTime() + 6 * 24 * 60 * 60_000)))).toBe(together[0]);
  expect((await repo.deliveries()).map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}']);
});

test('a body seen more than 7 days ago is a new delivery again', async () => {
  const { repo, store } = countingStore();
  const writer = createInboxWriter(store);
  expect(await writer.insertDelivery(delivery(1))).toEqual(expect.any(Number));
  const later = new Date(at.getTime() + REPLAY_WINDOW_MS + 1000);
  expect(await writer.insertDelivery(delivery(1, undefined, later))).toEqual(expect.any(Number));
  expect(await repo.deliveries()).toHaveLength(2);
  // …and it starts a new window: a replay in it answers the waiting row, adds none.
  const again = await writer.insertDelivery(delivery(1, undefined, new Date(later.getTime() + 1000)));
  expect((await repo.deliveries()).map((r) => r.id)).toContain(again);
  expect(await repo.deliveries()).toHaveLength(2);
});

test('a delivery that is not stored is not marked seen either: the service’s retry of it is accepted', async () => {
  const { store } = countingStore();
  const writer = createInboxWriter(store);
  await expect(writer.insertDelivery(delivery(1, 'nul \u0000 byte'))).rejects.toThrow();
  const seen = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from webhook_seen`);
  expect(seen).toEqual([{ n: 0 }]);
});
