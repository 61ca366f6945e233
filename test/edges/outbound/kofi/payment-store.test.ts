import { createKofiPaymentStore } from '../../../../src/edges/outbound/kofi/payment-store';
import type { KofiPayment } from '../../../../src/edges/outbound/kofi/kofi-payment';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

/** The stored Ko-fi payments a welcome is written from. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t.close());
beforeEach(() => t.reset());

const PAID = new Date('2026-11-28T09:00:00Z');
const payment = (messageId: string, over: Partial<KofiPayment> = {}): KofiPayment => ({
  messageId,
  kind: 'Subscription',
  paidAt: PAID,
  email: `${messageId}@example.com`,
  fromName: 'Ivy',
  tierName: 'Coffee Club',
  amountCents: 300,
  currency: 'USD',
  isSubscriptionPayment: true,
  isFirstSubscriptionPayment: true,
  isPublic: true,
  transactionId: null,
  discordUserId: '100000000000000001',
  linkCodeHash: null,
  ...over,
});

test('a first subscription payment is welcomed only once processed: before that, the link it carries is not made yet', async () => {
  const store = createKofiPaymentStore(t.database.db);
  await store.insert(payment('first'), PAID);
  await store.insert(payment('again', { isFirstSubscriptionPayment: false }), PAID);
  await store.insert(payment('tip', { kind: 'Donation', isSubscriptionPayment: false, isFirstSubscriptionPayment: false }), PAID);
  const since = new Date(PAID.getTime() - 60_000);
  expect(await store.firstSubscriptionsSince(since, 10)).toEqual([]);

  for (const id of ['first', 'again', 'tip']) await store.markProcessed(id, PAID);
  expect((await store.firstSubscriptionsSince(since, 10)).map((p) => p.messageId)).toEqual(['first']);
  expect(await store.firstSubscriptionsSince(new Date(PAID.getTime() + 1), 10)).toEqual([]);
});
