import { desiredRoles } from './desired-roles';
import { entitlement, notAMember } from './entitlement';
import { plan } from './plan';
import type { UnlinkedReason } from './reasons';
import type { DecidedPlan, DecidedRoles, DesiredRoles, Entitlement, GuildContext, LedgerEntry, MemberState, UserPlan } from './types';

export * from './types';
export * from './reasons';
export { entitlement, notAMember } from './entitlement';
export { adoptable, adoptions } from './adopt';
export { desiredRoles, freeTierRoleIds, grantReason, isFreeTier, managedRoleIds, tierRoles } from './desired-roles';
export { deadlineFrom, nextDeadline } from './deadlines';
export { addMonths, money, monthsBetween, ruleGrants } from './rule-roles';
export { GRANT_IN_FLIGHT_MS, plan, shouldHoldRemovals } from './plan';
export { DEFAULT_SETTINGS, SETTING_BOUNDS, MODES, applySettingsChange } from './settings';
export type { SettingsChange } from './settings';

export interface PlanUserInput {
  guild: GuildContext;
  userId: string;
  /**
   * What every source knows of the user (Patreon through their link, comps, Ko-fi…), one state per
   * source and campaign; missing campaigns mean "not a member". Empty when unlinked.
   */
  members: readonly MemberState[];
  currentRoleIds: ReadonlySet<string> | null;
  ledger: readonly LedgerEntry[];
  now: Date;
  unlinkedReason?: UnlinkedReason;
  managed?: ReadonlySet<string>;
  /** The user is joining the guild through the join page now: the joiner role applies if no tier gives a role. */
  joining?: boolean;
}

export interface PlannedUser {
  entitlements: Entitlement[];
  desired: DesiredRoles;
  plan: UserPlan;
}

/**
 * What {@link planUser} decides, without the words: the same entitlements, grants and changes, with
 * no reason, no note and no standing's sentence. For callers that plan many members and keep few
 * (the full sync keeps the members whose plan changes something, then words only those with
 * `planUser`): the words are half of what a member's plan allocates (docs/benchmarks.md).
 */
export interface Decision {
  entitlements: Entitlement[];
  desired: DecidedRoles;
  plan: DecidedPlan;
}

/** entitlement → desiredRoles → plan for one user of one guild: what every trigger calls. */
export function planUser(input: PlanUserInput): PlannedUser {
  return planned(input, true);
}

/**
 * {@link planUser} without the words ({@link Decision}). One planner: the same functions decide,
 * with their sentences and notes left out, so a decision and its worded plan cannot disagree
 * (test/core/planner/decision.test.ts plans a table of cases both ways).
 */
export function decideUser(input: PlanUserInput): Decision {
  return planned(input, false);
}

function planned(input: PlanUserInput, words: boolean): PlannedUser {
  const { guild } = input;
  const entitlements: Entitlement[] = [];
  for (const m of input.members) {
    if (guild.campaignIds.includes(m.campaignId) && (m.guildId ?? guild.guildId) === guild.guildId)
      entitlements.push(entitlement(m, guild.settings, input.now));
  }
  for (const campaignId of guild.campaignIds) {
    if (!entitlements.some((e) => e.campaignId === campaignId)) entitlements.push(notAMember(campaignId));
  }
  // Joined through the join page now, or earlier (the ledger holds a joiner grant, maybe of a role
  // the server has replaced since: the new joiner role takes its place).
  const joiner = input.joining === true || input.ledger.some((e) => e.kind === 'joiner');
  const desired = desiredRoles(entitlements, guild, { joiner, now: input.now, words });
  const userPlan = plan({
    guild,
    userId: input.userId,
    desired,
    currentRoleIds: input.currentRoleIds,
    ledger: input.ledger,
    entitlements,
    now: input.now,
    words,
    ...(input.unlinkedReason !== undefined ? { unlinkedReason: input.unlinkedReason } : {}),
    ...(input.managed !== undefined ? { managed: input.managed } : {}),
  });
  return { entitlements, desired, plan: userPlan };
}
