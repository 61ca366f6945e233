import { type InboxDelivery, createWebhookRepository } from '../../../src/edges/store/repositories/webhook-repository';
import { createSecretBox } from '../../../src/edges/store/secret-box';
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
const delivery = (n: number, body = `{"n":${n}}`): InboxDelivery => ({ receivedAt: at, trigger: 'members:update', campaignId: 'c1', body });

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
  for (const [n, id] of ids.entries()) expect((await repo.delivery(id))?.body).toBe(`{"n":${n}}`);
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
