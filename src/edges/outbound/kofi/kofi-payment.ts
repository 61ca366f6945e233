import { createHash, timingSafeEqual } from 'node:crypto';

/** The source name Ko-fi's links, payments and grants are stored under; also the id of its one campaign (the Ko-fi page). */
export const KOFI = 'kofi';

/** The tier every Ko-fi subscription counts as, whatever its `tier_name`: `/map tier:kofi:*`. */
export const ANY_MEMBERSHIP_TIER = '*';
/** The tier a donation counts as where the server's donation setting allows: `/map tier:kofi:*donation`. */
export const DONATION_TIER = '*donation';

/** Ko-fi's payment types; a type Ko-fi adds later is stored as sent and grants nothing. */
export type KofiPaymentType = 'Donation' | 'Subscription' | 'Commission' | 'Shop Order';

/** One payment, as Tierlink keeps it (the fields of Ko-fi's `data` that matter, bounded). */
export interface KofiPayment {
  messageId: string;
  kind: string;
  paidAt: Date;
  /** Lower case; the supporter's external id. Null when Ko-fi sent none. */
  email: string | null;
  fromName: string | null;
  tierName: string | null;
  amountCents: number;
  currency: string | null;
  isSubscriptionPayment: boolean;
  isFirstSubscriptionPayment: boolean;
  /** Ko-fi's `is_public`: the supporter agreed to be shown (a welcome may name them). */
  isPublic: boolean;
  transactionId: string | null;
  discordUserId: string | null;
  /** SHA-256 of a `/link` code found in the payment's message. */
  linkCodeHash: string | null;
}

export type KofiParse =
  | { kind: 'ok'; payment: KofiPayment }
  | { kind: 'no_data' }
  | { kind: 'not_json' }
  | { kind: 'wrong_token' }
  | { kind: 'invalid'; field: string; reason: string };

/** A `/link` code as it is written in a payment's message: `TL-` and ten letters or digits (no 0/O/1/I). */
export const LINK_CODE_PATTERN = /\bTL-([A-HJ-NP-Z2-9]{10})\b/i;

export function hashCode(code: string): string {
  return createHash('sha256').update(code.toUpperCase()).digest('hex');
}

/** Compares two secrets in constant time (over their SHA-256, so their lengths leak nothing either). */
export function tokensMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

const text = (v: unknown, max: number): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t.slice(0, max);
};

const bool = (v: unknown): boolean => v === true || v === 'true';

/**
 * Ko-fi's `amount` ("3.00", sometimes "3", "1,000.00") in cents; null when it is no amount. Ko-fi
 * states the payment's own currency; nothing is converted.
 */
export function amountCents(v: unknown): number | null {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim().replace(/,/g, '') : '';
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  return Number(m[1]) * 100 + (m[2] ? Number(m[2].padEnd(2, '0')) : 0);
}

/**
 * Reads the form field `data` of a Ko-fi delivery: the verification token first (constant time,
 * nothing else is read from a delivery that fails it), then the fields a payment needs. A payment
 * dated after `now` is dated `now`: a timestamp can only move an entitlement's end later, and
 * nothing can confirm it.
 */
export function parseKofiDelivery(data: unknown, verificationToken: string, now: Date): KofiParse {
  if (typeof data !== 'string' || data === '') return { kind: 'no_data' };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { kind: 'not_json' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { kind: 'not_json' };
  const d = json as Record<string, unknown>;
  const token = typeof d.verification_token === 'string' ? d.verification_token : '';
  if (!tokensMatch(token, verificationToken)) return { kind: 'wrong_token' };

  const messageId = text(d.message_id, 200);
  if (!messageId) return { kind: 'invalid', field: 'message_id', reason: 'missing' };
  const kind = text(d.type, 40);
  if (!kind) return { kind: 'invalid', field: 'type', reason: 'missing' };
  const stamp = typeof d.timestamp === 'string' ? new Date(d.timestamp) : null;
  if (!stamp || Number.isNaN(stamp.getTime())) return { kind: 'invalid', field: 'timestamp', reason: 'not a date' };
  const cents = amountCents(d.amount);
  if (cents === null) return { kind: 'invalid', field: 'amount', reason: 'not an amount' };
  const discord = text(d.discord_userid, 30);
  const message = typeof d.message === 'string' ? d.message.slice(0, 2000) : '';
  const code = LINK_CODE_PATTERN.exec(message)?.[1] ?? null;
  return {
    kind: 'ok',
    payment: {
      messageId,
      kind,
      paidAt: stamp.getTime() > now.getTime() ? now : stamp,
      email: text(d.email, 320)?.toLowerCase() ?? null,
      fromName: text(d.from_name, 100),
      tierName: text(d.tier_name, 100),
      amountCents: cents,
      currency: text(d.currency, 10)?.toUpperCase() ?? null,
      isSubscriptionPayment: bool(d.is_subscription_payment),
      isFirstSubscriptionPayment: bool(d.is_first_subscription_payment),
      isPublic: bool(d.is_public),
      transactionId: text(d.kofi_transaction_id, 100),
      discordUserId: discord && /^\d{17,20}$/.test(discord) ? discord : null,
      linkCodeHash: code ? hashCode(code) : null,
    },
  };
}
