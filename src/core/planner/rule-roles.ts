import { day } from './format';
import { type ReasonCode, UNSAID } from './reasons';
import type { Entitlement, GuildContext, RuleRole } from './types';

/**
 * Roles by tenure and by amount, whatever the tier: a role for patrons of at least N months, a role
 * for anyone entitled to at least X a month (custom pledges included).
 *
 * - Tenure counts whole calendar months (UTC) from the membership's start as the source gives it
 *   (Patreon's `pledge_relationship_start`, which a pledge change does not move). Only an entitled
 *   member holds it (`active`, or `grace`: a declined payment inside its grace period does not break
 *   the count). A pause or an end takes the role away; the source decides whether a new membership
 *   starts a new count (Patreon's starts afresh after a pledge ends; a paused pledge keeps its start).
 * - Amount compares the entitled monthly amount, in the campaign's currency as the source states it
 *   (no conversion: a creator sets the threshold in the currency their campaign charges).
 * - Free tiers count where the server lets them grant roles; an unconfirmed payload never grants.
 */
export interface RuleGrant {
  rule: RuleRole;
  /** The entitlement that meets it (the longest membership, or the largest amount). */
  entitlement: Entitlement;
  reason: string;
  why: ReasonCode;
}

/** Whole calendar months from `since` to `now` (UTC); 0 when `now` is before `since`. */
export function monthsBetween(since: Date, now: Date): number {
  let months = (now.getUTCFullYear() - since.getUTCFullYear()) * 12 + (now.getUTCMonth() - since.getUTCMonth());
  const sinceRest = since.getTime() - Date.UTC(since.getUTCFullYear(), since.getUTCMonth());
  const nowRest = now.getTime() - Date.UTC(now.getUTCFullYear(), now.getUTCMonth());
  if (nowRest < sinceRest) months -= 1;
  return Math.max(0, months);
}

/** `since` plus whole calendar months (UTC), the day clamped to the month's last (Jan 31 + 1 month: Feb 28). */
export function addMonths(since: Date, months: number): Date {
  const y = since.getUTCFullYear();
  const m = since.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = Math.min(since.getUTCDate(), last);
  return new Date(Date.UTC(y, m, d, since.getUTCHours(), since.getUTCMinutes(), since.getUTCSeconds(), since.getUTCMilliseconds()));
}

const entitledNow = (e: Entitlement): boolean => (e.kind === 'active' || e.kind === 'grace') && !e.unreadable;

/** The rule roles an entitled user meets in this guild (`words: false`: with empty reasons, see `desiredRoles`). */
export function ruleGrants(
  guild: Pick<GuildContext, 'ruleRoles'>,
  entitlements: readonly Entitlement[],
  now: Date,
  words = true,
): RuleGrant[] {
  const out: RuleGrant[] = [];
  if (!guild.ruleRoles || guild.ruleRoles.length === 0) return out;
  const entitled = entitlements.filter(entitledNow);
  for (const rule of guild.ruleRoles ?? []) {
    if (rule.kind === 'tenure') {
      const longest = entitled
        .filter((e) => e.since !== null && e.basis !== 'comp')
        .sort((a, b) => a.since!.getTime() - b.since!.getTime())[0];
      if (!longest) continue;
      const months = monthsBetween(longest.since!, now);
      if (months < rule.months) continue;
      if (!words) {
        out.push({ rule, entitlement: longest, ...UNSAID });
        continue;
      }
      out.push({
        rule,
        entitlement: longest,
        reason: `a patron for ${months} ${months === 1 ? 'month' : 'months'} (since ${day(longest.since!)}; this role is for ${rule.months} or more)`,
        why: { code: 'tenure', months, since: day(longest.since!), min: rule.months },
      });
    } else {
      const largest = entitled.filter((e) => e.amount !== null).sort((a, b) => b.amount!.cents - a.amount!.cents)[0];
      if (!largest || largest.amount!.cents < rule.cents) continue;
      if (!words) {
        out.push({ rule, entitlement: largest, ...UNSAID });
        continue;
      }
      const { cents, currency } = largest.amount!;
      out.push({
        rule,
        entitlement: largest,
        reason: `pledges ${money(cents, currency)} a month (this role is for ${money(rule.cents, currency)} or more)`,
        why: { code: 'amount', cents, currency, min: rule.cents },
      });
    }
  }
  return out;
}

/** When the next tenure rule will be met by an entitled member who does not meet it yet; null: none. */
export function nextTenureAt(guild: Pick<GuildContext, 'ruleRoles'>, entitlements: readonly Entitlement[], now: Date): Date | null {
  let next: Date | null = null;
  for (const rule of guild.ruleRoles ?? []) {
    if (rule.kind !== 'tenure') continue;
    for (const e of entitlements) {
      if (!entitledNow(e) || e.since === null || e.basis === 'comp') continue;
      const at = addMonths(e.since, rule.months);
      if (at.getTime() > now.getTime() && (next === null || at.getTime() < next.getTime())) next = at;
    }
  }
  return next;
}

/** "$20.00", "20.00 EUR", or "20.00" when the source does not say the currency (the campaign's own). */
export function money(cents: number, currency: string | null): string {
  const amount = (cents / 100).toFixed(2);
  if (currency === 'USD') return `$${amount}`;
  return currency === null ? amount : `${amount} ${currency}`;
}
