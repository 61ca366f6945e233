import type { GuildSettings } from './planner/types';

/**
 * The settings that decide how much protection members and the server have, rather than which role
 * means what: the grace period after a declined payment, the guard that holds a sync's mass removal,
 * the mode, and who may join through the join page. Changing one needs Manage Server (a moderator
 * with Manage Roles manages roles, not the server's rules); changing one so that it protects less
 * needs the server's owner or an Administrator.
 */
export const POLICY_SETTINGS = ['graceDays', 'removalThresholdPercent', 'removalThresholdMin', 'mode', 'joinNonPatrons'] as const;

export type PolicySetting = (typeof POLICY_SETTINGS)[number];

/** How each policy setting is called where people change it (`/settings` and the dashboard). */
export const POLICY_LABELS: Readonly<Record<PolicySetting, string>> = {
  graceDays: 'the grace period',
  removalThresholdPercent: 'the mass-removal guard',
  removalThresholdMin: 'the mass-removal guard',
  mode: 'the mode',
  joinNonPatrons: 'who may join through the join page',
};

/** The policy settings `after` changes. */
export function policyChanges(before: GuildSettings, after: GuildSettings): PolicySetting[] {
  return POLICY_SETTINGS.filter((key) => (after[key] ?? null) !== (before[key] ?? null));
}

/**
 * The changes that protect less, each in words: a shorter grace period (declined patrons lose their
 * roles sooner: 0 takes them at the first failed charge), a guard that lets larger removals through
 * unheld, `highest` mode (takes every lower tier's roles from patrons of several tiers), and a join
 * page open to people whose tier gives no role here.
 */
export function weakenings(before: GuildSettings, after: GuildSettings): string[] {
  const out: string[] = [];
  if (after.graceDays < before.graceDays)
    out.push(`shortening the grace period from ${before.graceDays} to ${after.graceDays} day${after.graceDays === 1 ? '' : 's'}`);
  if (after.removalThresholdPercent > before.removalThresholdPercent || after.removalThresholdMin > before.removalThresholdMin)
    out.push('letting larger mass removals through the guard');
  if (before.mode === 'stack' && after.mode === 'highest') out.push('switching to highest mode, which takes lower tiers’ roles away');
  if (!(before.joinNonPatrons ?? false) && (after.joinNonPatrons ?? false))
    out.push('opening the join page to people whose tier gives no role here');
  return out;
}
