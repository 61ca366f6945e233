import type { MemberState } from '../../../core/planner/types';
import { ANY_MEMBERSHIP_TIER, DONATION_TIER, KOFI, type KofiPayment } from './kofi-payment';

/** A server's donation setting: a donation of at least `minCents` entitles to {@link DONATION_TIER} for `days` days. */
export interface DonationSetting {
  guildId: string;
  minCents: number;
  days: number;
}

const DAY_MS = 86_400_000;

/** One calendar month after `at` (UTC), on the same day or the month's last: a payment on 31 January covers to 28 (or 29) February. */
export function oneMonthAfter(at: Date): Date {
  const d = new Date(at.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + 1);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** A payment later than this after the previous month's end starts a new membership (tenure counts from it). */
const CONTINUITY_MS = 7 * DAY_MS;

const money = (p: KofiPayment) => `${(p.amountCents / 100).toFixed(2)}${p.currency ? ` ${p.currency}` : ''}`;

/**
 * What a Ko-fi supporter's payments entitle them to, in the planner's words:
 * - subscriptions: the tier of the latest payment (and "any Ko-fi membership") for one month from
 *   its timestamp, and the server's grace days after that (`graceAfterUntil`); each payment extends
 *   it. The planner ends it by itself (src/core/planner/entitlement.ts).
 * - a donation (`Donation`) entitles to nothing, unless a server's donation setting says so: then,
 *   in that server only, to {@link DONATION_TIER} for its days from the latest donation big enough.
 * `Commission` and `Shop Order` entitle to nothing.
 */
export function kofiStates(payments: readonly KofiPayment[], donationSettings: readonly DonationSetting[]): MemberState[] {
  const out: MemberState[] = [];
  const subs = payments.filter((p) => p.kind === 'Subscription').sort((a, b) => a.paidAt.getTime() - b.paidAt.getTime());
  const last = subs.at(-1);
  if (last) {
    let since = subs[0]!.paidAt;
    for (let i = 1; i < subs.length; i++) {
      if (subs[i]!.paidAt.getTime() > oneMonthAfter(subs[i - 1]!.paidAt).getTime() + CONTINUITY_MS) since = subs[i]!.paidAt;
    }
    out.push({
      source: KOFI,
      campaignId: KOFI,
      memberId: last.email,
      readAt: last.paidAt,
      standing: 'entitled',
      basis: 'subscription',
      tierIds: last.tierName ? [last.tierName, ANY_MEMBERSHIP_TIER] : [ANY_MEMBERSHIP_TIER],
      failedSince: null,
      until: oneMonthAfter(last.paidAt),
      graceAfterUntil: true,
      since,
      amount: { cents: last.amountCents, currency: last.currency },
      isFollower: false,
      detail: last.tierName
        ? `Ko-fi subscription (${last.tierName}, ${money(last)} on ${day(last.paidAt)})`
        : `Ko-fi subscription (${money(last)} on ${day(last.paidAt)})`,
    });
  }
  const donations = payments.filter((p) => p.kind === 'Donation');
  for (const setting of donationSettings) {
    const best = donations.filter((p) => p.amountCents >= setting.minCents).sort((a, b) => b.paidAt.getTime() - a.paidAt.getTime())[0];
    if (!best) continue;
    out.push({
      source: KOFI,
      campaignId: KOFI,
      memberId: best.email,
      readAt: best.paidAt,
      guildId: setting.guildId,
      standing: 'entitled',
      basis: 'paid_period',
      tierIds: [DONATION_TIER],
      failedSince: null,
      until: new Date(best.paidAt.getTime() + setting.days * DAY_MS),
      graceAfterUntil: false,
      since: null,
      amount: null,
      isFollower: false,
      detail: `Ko-fi donation of ${money(best)} on ${day(best.paidAt)}`,
    });
  }
  return out;
}

function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}
