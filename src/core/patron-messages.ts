import { type T, translator } from './i18n';
import { entitlement } from './planner/entitlement';
import type { GuildContext, MemberState } from './planner/types';

/** Where a patron updates the payment method of their memberships on Patreon. */
export const PATREON_MEMBERSHIPS_URL = 'https://www.patreon.com/settings/memberships';

/** A declined payment whose roles this server keeps for a while: what a direct message tells the patron. */
export interface DeclinedPayment {
  campaignId: string;
  /** The membership's id on Patreon. */
  memberId: string;
  failedSince: Date;
  graceEndsAt: Date;
}

/**
 * The declined payments (of `source`) of one member that this server serves and still keeps roles for
 * (its grace period has not ended, and some tier's roles are kept). A decline with no grace (the
 * server has none, or it already ended) is not told here: the roles are already gone.
 */
export function declinedPayments(
  guild: Pick<GuildContext, 'guildId' | 'campaignIds' | 'settings'>,
  members: readonly MemberState[],
  now: Date,
  /** The source whose payments these are (the message points to its payment settings). */
  source: string,
): DeclinedPayment[] {
  const out: DeclinedPayment[] = [];
  for (const m of members) {
    if (m.source !== source || m.standing !== 'payment_failed' || m.unreadable || m.unconfirmed) continue;
    if (!guild.campaignIds.includes(m.campaignId) || (m.guildId ?? guild.guildId) !== guild.guildId) continue;
    if (m.memberId === null || m.failedSince === null) continue;
    const e = entitlement(m, guild.settings, now);
    if (e.kind !== 'grace' || e.graceEndsAt === null || e.tierIds.length === 0) continue;
    out.push({ campaignId: m.campaignId, memberId: m.memberId, failedSince: m.failedSince, graceEndsAt: e.graceEndsAt });
  }
  return out;
}

/** How long after a grace period's end its message is still worth sending (a member planned later is not told). */
export const GRACE_ENDED_TELL_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * The declined payments (of `source`) of one member whose grace period in this server ended a
 * moment ago (within {@link GRACE_ENDED_TELL_MS}): their roles go now.
 */
export function endedGraces(
  guild: Pick<GuildContext, 'guildId' | 'campaignIds' | 'settings'>,
  members: readonly MemberState[],
  now: Date,
  source: string,
): DeclinedPayment[] {
  const out: DeclinedPayment[] = [];
  for (const m of members) {
    if (m.source !== source || m.standing !== 'payment_failed' || m.unreadable || m.unconfirmed) continue;
    if (!guild.campaignIds.includes(m.campaignId) || (m.guildId ?? guild.guildId) !== guild.guildId) continue;
    if (m.memberId === null || m.failedSince === null || m.tierIds.length === 0) continue;
    const e = entitlement(m, guild.settings, now);
    if (e.kind !== 'lapsed' || e.graceEndsAt === null) continue;
    const since = now.getTime() - e.graceEndsAt.getTime();
    if (since < 0 || since > GRACE_ENDED_TELL_MS) continue;
    out.push({ campaignId: m.campaignId, memberId: m.memberId, failedSince: m.failedSince, graceEndsAt: e.graceEndsAt });
  }
  return out;
}

/** Where and what, as the messages say them: "in **Fan Club**", " to **Ada's Art**". */
function place(t: T, input: { serverName: string | null; campaignName: string | null }) {
  return {
    where: input.serverName ? t('dm.inServer', { server: input.serverName }) : t('dm.inTheServer'),
    to: input.campaignName ? t('dm.to', { campaign: input.campaignName }) : '',
  };
}

/** The direct message at the end of a grace period, in the patron's language: the roles went, and how to get them back. */
export function composeGraceEnded(input: { serverName: string | null; campaignName: string | null }, t: T = translator('en')): string {
  const { where, to } = place(t, input);
  return [t('dm.graceEnded', { to, where }), t('dm.graceEndedFix', { url: PATREON_MEMBERSHIPS_URL }), t('dm.why')].join('\n');
}

/**
 * The direct message of a declined payment, in the patron's language: what happened, until when the
 * roles stay (a Discord timestamp, shown as a date in the reader's own language and time zone), and
 * where to update the payment.
 */
export function composePaymentDeclined(
  input: { serverName: string | null; campaignName: string | null; graceEndsAt: Date },
  t: T = translator('en'),
): string {
  const unix = Math.floor(input.graceEndsAt.getTime() / 1000);
  const { where, to } = place(t, input);
  return [
    t('dm.declined', { to }),
    t('dm.declinedKeep', { where, date: `<t:${unix}:D>`, relative: `<t:${unix}:R>` }),
    t('dm.declinedFix', { url: PATREON_MEMBERSHIPS_URL }),
    t('dm.why'),
  ].join('\n');
}

/** The direct message when a patron's membership is linked in a server: what Tierlink does for them there. */
export function composeLinked(t: T, input: { serverName: string | null }): string {
  return [t('dm.linked', { server: input.serverName ?? 'the server' }), t('dm.linkedFooter')].join('\n');
}
