import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../support/clock';

/**
 * A stand-in of Ko-fi's webhook sender: it POSTs payments to a URL the way Ko-fi does
 * (`Content-Type: application/x-www-form-urlencoded`, one field `data` holding the JSON, the
 * verification token inside it), and keeps retrying a delivery that is not answered 200, as Ko-fi
 * does. Ko-fi has no API to list or read supporters, so neither has this stand-in.
 */

export type KofiType = 'Donation' | 'Subscription' | 'Commission' | 'Shop Order';

/** Ko-fi's `data` JSON, field for field. */
export interface KofiData {
  verification_token: string;
  message_id: string;
  timestamp: string;
  type: KofiType;
  is_public: boolean;
  from_name: string;
  message: string | null;
  amount: string;
  url: string;
  email: string;
  currency: string;
  is_subscription_payment: boolean;
  is_first_subscription_payment: boolean;
  kofi_transaction_id: string;
  shop_items: Array<{ direct_link_code: string; variation_name: string; quantity: number }> | null;
  tier_name: string | null;
  shipping: Record<string, string> | null;
  discord_username?: string | null;
  discord_userid?: string | null;
}

/** One attempt at a delivery, and what came back. */
export interface KofiAttempt {
  messageId: string;
  status: number;
  body: string;
  ms: number;
}

export interface KofiPaymentInput {
  type?: KofiType;
  fromName?: string;
  email: string;
  amount?: string;
  currency?: string;
  tierName?: string | null;
  message?: string | null;
  discordUserId?: string | null;
  discordUsername?: string | null;
  /** Ko-fi's flag on a subscription's first payment (default: the first Subscription this email paid here). */
  first?: boolean;
  /** Defaults to the stand-in's clock. */
  at?: Date;
  /** Ko-fi's `is_public` (the supporter let their name and message show); default true. */
  isPublic?: boolean;
}

export interface KofiStandIn {
  /** Where payments go (Tierlink's `POST /webhooks/kofi`). */
  webhookUrl: string;
  /** Every attempt, in order. */
  attempts: KofiAttempt[];
  /** Deliveries not yet answered 200 (Ko-fi retries them). */
  pending(): KofiData[];
  /** Builds a payment as Ko-fi would and delivers it once; answers the attempt. */
  pay(input: KofiPaymentInput): Promise<KofiAttempt & { data: KofiData }>;
  /** Delivers the same payment again (a retry, a replay): the same `message_id`. */
  deliver(data: KofiData): Promise<KofiAttempt>;
  /** Ko-fi's retry: every delivery not answered 200 is sent again. */
  retryPending(): Promise<KofiAttempt[]>;
  /** Test control: the token sent from now on (Ko-fi sends whatever its settings hold; a wrong one is a misconfiguration). */
  useToken(token: string): void;
}

export function createKofiStandIn(options: { webhookUrl: string; verificationToken: string; clock?: Clock }): KofiStandIn {
  const clock = options.clock ?? systemClock;
  let token = options.verificationToken;
  const attempts: KofiAttempt[] = [];
  const unanswered = new Map<string, KofiData>();
  const subscribed = new Set<string>();

  async function deliver(data: KofiData): Promise<KofiAttempt> {
    const body = new URLSearchParams({ data: JSON.stringify(data) }).toString();
    const started = performance.now();
    let status = 0;
    let text: string;
    try {
      const res = await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
      status = res.status;
      text = await res.text();
    } catch (error) {
      text = error instanceof Error ? error.message : String(error);
    }
    const attempt = { messageId: data.message_id, status, body: text, ms: performance.now() - started };
    attempts.push(attempt);
    if (status === 200) unanswered.delete(data.message_id);
    else unanswered.set(data.message_id, data);
    return attempt;
  }

  return {
    webhookUrl: options.webhookUrl,
    attempts,
    pending: () => [...unanswered.values()],
    async pay(input) {
      const type = input.type ?? 'Subscription';
      const isSub = type === 'Subscription';
      const first = input.first ?? (isSub && !subscribed.has(input.email));
      if (isSub) subscribed.add(input.email);
      const txid = randomUUID();
      const data: KofiData = {
        verification_token: token,
        message_id: randomUUID(),
        timestamp: (input.at ?? clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        type,
        is_public: input.isPublic ?? true,
        from_name: input.fromName ?? input.email.split('@')[0]!,
        message: input.message ?? null,
        amount: input.amount ?? '5.00',
        url: `https://ko-fi.com/Home/CoffeeShop?txid=${txid}`,
        email: input.email,
        currency: input.currency ?? 'USD',
        is_subscription_payment: isSub,
        is_first_subscription_payment: isSub && first,
        kofi_transaction_id: txid,
        shop_items: type === 'Shop Order' ? [{ direct_link_code: '1a2b3c4d5e', variation_name: 'Sticker', quantity: 1 }] : null,
        tier_name: isSub ? (input.tierName ?? null) : null,
        shipping: null,
        discord_username: input.discordUsername ?? null,
        discord_userid: input.discordUserId ?? null,
      };
      return { ...(await deliver(data)), data };
    },
    deliver,
    async retryPending() {
      const out: KofiAttempt[] = [];
      for (const data of [...unanswered.values()]) out.push(await deliver(data));
      return out;
    },
    useToken(next) {
      token = next;
    },
  };
}
