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
  return weakeningsOf(before, after).map((w) =>
    w.kind === 'grace'
      ? `shortening the grace period from ${w.from} to ${w.to} day${w.to === 1 ? '' : 's'}`
      : w.kind === 'guard'
        ? 'letting larger mass removals through the guard'
        : w.kind === 'highest'
          ? 'switching to highest mode, which takes lower tiers’ roles away'
          : 'opening the join page to people whose tier gives no role here',
  );
}

/** A change that protects less, as facts (the same as {@link weakenings}' words). */
export type Weakening = { kind: 'grace'; from: number; to: number } | { kind: 'guard' } | { kind: 'highest' } | { kind: 'open_join' };

/** The changes that protect less, as facts, in the order {@link weakenings} says them. */
export function weakeningsOf(before: GuildSettings, after: GuildSettings): Weakening[] {
  const out: Weakening[] = [];
  if (after.graceDays < before.graceDays) out.push({ kind: 'grace', from: before.graceDays, to: after.graceDays });
  if (after.removalThresholdPercent > before.removalThresholdPercent || after.removalThresholdMin > before.removalThresholdMin)
    out.push({ kind: 'guard' });
  if (before.mode === 'stack' && after.mode === 'highest') out.push({ kind: 'highest' });
  if (!(before.joinNonPatrons ?? false) && (after.joinNonPatrons ?? false)) out.push({ kind: 'open_join' });
  return out;
}
