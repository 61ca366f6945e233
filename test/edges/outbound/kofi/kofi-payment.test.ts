import { amountCents, hashCode, parseKofiDelivery, tokensMatch } from '../../../../src/edges/outbound/kofi/kofi-payment';
import { kofiStates, oneMonthAfter } from '../../../../src/edges/outbound/kofi/kofi-states';
import type { KofiPayment } from '../../../../src/edges/outbound/kofi/kofi-payment';

const TOKEN = 'a1b2c3d4-token';
const NOW = new Date('2026-11-20T12:00:00Z');
const data = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    verification_token: TOKEN,
    message_id: 'm-1',
    timestamp: '2026-11-20T10:00:00Z',
    type: 'Subscription',
    is_public: true,
    from_name: 'Jo',
    message: null,
    amount: '3.00',
    url: 'https://ko-fi.com/Home/CoffeeShop?txid=t',
    email: 'Jo@Example.com',
    currency: 'usd',
    is_subscription_payment: true,
    is_first_subscription_payment: true,
    kofi_transaction_id: 't',
    shop_items: null,
    tier_name: 'Gold',
    shipping: null,
    discord_username: 'jo',
    discord_userid: '100000000000000001',
    ...over,
  });

describe('reading a Ko-fi delivery', () => {
  test('a payment is read with its email in lower case, its amount in cents, and its Discord account', () => {
    const parsed = parseKofiDelivery(data(), TOKEN, NOW);
    expect(parsed).toMatchObject({
      kind: 'ok',
      payment: { messageId: 'm-1', kind: 'Subscription', email: 'jo@example.com', amountCents: 300, currency: 'USD', tierName: 'Gold' },
    });
    if (parsed.kind === 'ok') expect(parsed.payment.discordUserId).toBe('100000000000000001');
  });

  test('a wrong, missing or differently long token is refused before anything else is read', () => {
    expect(parseKofiDelivery(data({ verification_token: 'nope' }), TOKEN, NOW)).toEqual({ kind: 'wrong_token' });
    expect(parseKofiDelivery(data({ verification_token: undefined, message_id: undefined }), TOKEN, NOW)).toEqual({ kind: 'wrong_token' });
    expect(parseKofiDelivery(data({ verification_token: `${TOKEN}x` }), TOKEN, NOW)).toEqual({ kind: 'wrong_token' });
    expect(tokensMatch(TOKEN, TOKEN)).toBe(true);
  });

  test('no data, not JSON, or a payment without its id, date or amount is refused with the field named', () => {
    expect(parseKofiDelivery(null, TOKEN, NOW)).toEqual({ kind: 'no_data' });
    expect(parseKofiDelivery('{nope', TOKEN, NOW)).toEqual({ kind: 'not_json' });
    expect(parseKofiDelivery('[1]', TOKEN, NOW)).toEqual({ kind: 'not_json' });
    expect(parseKofiDelivery(data({ message_id: '' }), TOKEN, NOW)).toMatchObject({ kind: 'invalid', field: 'message_id' });
    expect(parseKofiDelivery(data({ timestamp: 'soon' }), TOKEN, NOW)).toMatchObject({ kind: 'invalid', field: 'timestamp' });
    expect(parseKofiDelivery(data({ amount: 'free' }), TOKEN, NOW)).toMatchObject({ kind: 'invalid', field: 'amount' });
  });

  test('a payment dated in the future is dated now; a Discord id that is no snowflake is ignored', () => {
    const parsed = parseKofiDelivery(data({ timestamp: '2030-01-01T00:00:00Z', discord_userid: 'robert' }), TOKEN, NOW);
    expect(parsed.kind === 'ok' && parsed.payment.paidAt).toEqual(NOW);
    expect(parsed.kind === 'ok' && parsed.payment.discordUserId).toBeNull();
  });

  test('a /link code in the message is kept as its hash, whatever its case', () => {
    const parsed = parseKofiDelivery(data({ message: 'thanks! tl-abcdefgh23 :)' }), TOKEN, NOW);
    expect(parsed.kind === 'ok' && parsed.payment.linkCodeHash).toBe(hashCode('ABCDEFGH23'));
  });

  test('amounts', () => {
    expect(amountCents('3.00')).toBe(300);
    expect(amountCents('3')).toBe(300);
    expect(amountCents('1,000.5')).toBe(100050);
    expect(amountCents('-3')).toBeNull();
    expect(amountCents('3.001')).toBeNull();
  });
});

const payment = (over: Partial<KofiPayment>): KofiPayment => ({
  messageId: 'm',
  kind: 'Subscription',
  paidAt: new Date('2026-01-31T10:00:00Z'),
  email: 'jo@example.com',
  fromName: 'Jo',
  tierName: 'Gold',
  amountCents: 500,
  currency: 'USD',
  isSubscriptionPayment: true,
  isFirstSubscriptionPayment: false,
  isPublic: true,
  transactionId: null,
  discordUserId: null,
  linkCodeHash: null,
  ...over,
});

describe('what Ko-fi payments entitle to', () => {
  test('one calendar month from the payment, the month’s last day when shorter', () => {
    expect(oneMonthAfter(new Date('2026-01-31T10:00:00Z'))).toEqual(new Date('2026-02-28T10:00:00Z'));
    expect(oneMonthAfter(new Date('2026-12-15T00:00:00Z'))).toEqual(new Date('2027-01-15T00:00:00Z'));
  });

  test('a subscription: its tier and any membership, until a month after the latest payment, with the server’s grace after it', () => {
    const [state] = kofiStates(
      [payment({ paidAt: new Date('2026-01-10T00:00:00Z') }), payment({ paidAt: new Date('2026-02-09T00:00:00Z'), tierName: 'Silver' })],
      [],
    );
    expect(state).toMatchObject({
      source: 'kofi',
      campaignId: 'kofi',
      standing: 'entitled',
      basis: 'subscription',
      tierIds: ['Silver', '*'],
      until: new Date('2026-03-09T00:00:00Z'),
      graceAfterUntil: true,
      since: new Date('2026-01-10T00:00:00Z'),
    });
    expect(state!.detail).toMatch(/^Ko-fi subscription \(Silver/);
  });

  test('a gap of more than a month and a week starts a new membership (tenure counts from it)', () => {
    const [state] = kofiStates(
      [payment({ paidAt: new Date('2026-01-10T00:00:00Z') }), payment({ paidAt: new Date('2026-04-01T00:00:00Z') })],
      [],
    );
    expect(state!.since).toEqual(new Date('2026-04-01T00:00:00Z'));
  });

  test('donations, commissions and shop orders grant nothing, unless a server’s donation setting says so (there only)', () => {
    const paid = [
      payment({ kind: 'Donation', amountCents: 300, paidAt: new Date('2026-01-01T00:00:00Z') }),
      payment({ kind: 'Commission', amountCents: 9000 }),
      payment({ kind: 'Shop Order', amountCents: 9000 }),
    ];
    expect(kofiStates(paid, [])).toEqual([]);
    expect(kofiStates(paid, [{ guildId: 'g', minCents: 500, days: 30 }])).toEqual([]);
    expect(kofiStates(paid, [{ guildId: 'g', minCents: 300, days: 30 }])).toEqual([
      expect.objectContaining({ guildId: 'g', tierIds: ['*donation'], until: new Date('2026-01-31T00:00:00Z'), graceAfterUntil: false }),
    ]);
  });
});
