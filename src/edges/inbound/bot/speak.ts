import { type DesiredGrant, grantReason } from '../../../core/planner';
import type { Entitlement, RoleNote } from '../../../core/planner';
import { listed } from '../../../core/authority';
import { noteReasonText } from '../../../core/role-note-text';
import {
  ENGLISH,
  type Locale,
  type MessageKey,
  type T,
  formatDate,
  formatDateTime,
  fromDiscordLocale,
  translator,
} from '../../../core/i18n';
import { day } from './format';

/**
 * The language of a reply: the member's Discord client (`interaction.locale`), so each member reads
 * the bot in their own language whatever the server's (docs/i18n.md).
 */
export interface Speaker {
  locale: Locale;
  t: T;
}

export function speakerFor(interaction: { locale?: string | null }): Speaker {
  const locale = fromDiscordLocale(interaction.locale);
  return { locale, t: translator(locale) };
}

export const ENGLISH_SPEAKER: Speaker = { locale: 'en', t: translator('en') };

/** A calendar day: `2026-11-09` in English (as the planner writes them), the language's own way otherwise. */
export function dayFor(speaker: Speaker, date: Date): string {
  return speaker.locale === 'en' ? day(date) : formatDate(speaker.locale, date);
}

/**
 * Why a member has a role. English keeps the planner's own words (they name the source, a comp's
 * giver, every tier that justifies it); another language says which tier or setting, from the
 * grant's fields: the planner's sentences are English data, recorded in the ledger and audit log.
 */
export function grantReasonFor(
  speaker: Speaker,
  grant: DesiredGrant,
  tierTitle: (campaignId: string, tierId: string) => string | null,
): string {
  if (speaker.locale === 'en') return grantReason(grant);
  const title = grant.campaignId && grant.tierId ? (tierTitle(grant.campaignId, grant.tierId) ?? grant.tierId) : null;
  if (grant.kind === 'tier' && title)
    return speaker.t(grant.sources.length > 0 && grant.sources.every((s) => s === 'comp') ? 'grant.comp' : 'grant.tier', { tier: title });
  if (grant.kind === 'tenure' || grant.kind === 'amount') return speaker.t('grant.rule');
  return speaker.t('grant.setting');
}

/** A member's standing in a campaign, in one phrase: the planner's words in English, by its kind otherwise. */
export function standingFor(speaker: Speaker, entitlement: Entitlement, tierTitles: readonly string[]): string {
  if (speaker.locale === 'en') return `${entitlement.reason}${tierTitles.length > 0 ? `: ${tierTitles.join(', ')}` : ''}`;
  const { t } = speaker;
  switch (entitlement.kind) {
    case 'active':
      return tierTitles.length > 0 ? t('standing.activeTiers', { tiers: tierTitles.join(', ') }) : t('standing.active');
    case 'grace':
      return entitlement.graceEndsAt ? t('standing.grace', { date: dayFor(speaker, entitlement.graceEndsAt) }) : t('standing.lapsed');
    case 'lapsed':
      return t('standing.lapsed');
    case 'former':
      return t('standing.former');
    case 'follower':
      return t('standing.follower');
    case 'none':
      return t('standing.none');
  }
}

/** A moment to the minute, in UTC: `2027-01-01 00:00 UTC` in English, the language's own way otherwise. */
export function momentFor(speaker: Speaker, date: Date): string {
  return `${speaker.locale === 'en' ? date.toISOString().slice(0, 16).replace('T', ' ') : formatDateTime(speaker.locale, date)} UTC`;
}

/** Names in a sentence: "A, B and C" (`Intl.ListFormat` in the reader's language). */
export function listFor(speaker: Speaker, names: readonly string[]): string {
  if (speaker.locale === 'en') return listed(names);
  return new Intl.ListFormat(speaker.locale, { type: 'conjunction' }).format(names);
}

type PermissionKey = Extract<MessageKey, `perm.${string}`>;

/** A Discord permission by its English name, as Discord names it in the reader's language. */
export function permissionFor(speaker: Speaker, english: string): string {
  const key = `perm.${english}`;
  return key in ENGLISH ? speaker.t(key as PermissionKey) : english;
}

/** Why a role is not given, in the reader's language (src/core/role-note-text.ts). */
export function noteReasonFor(speaker: Speaker, note: RoleNote): string {
  return noteReasonText(speaker.t, note, (entitlement) => standingFor(speaker, entitlement, []));
}
