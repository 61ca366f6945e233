import { desiredRoles } from './desired-roles';
import { entitlement } from './entitlement';
import { plan } from './plan';
import type { DesiredRoles, Entitlement, GuildContext, LedgerEntry, MemberState, UserPlan } from './types';

export * from './types';
export { CHARGE_RULES, CHARGE_STATUSES, PATRON_STATUSES, chargeRule, entitlement, graceAnchor } from './entitlement';
export type { ChargeRule } from './entitlement';
export { adoptions } from './adopt';
export { desiredRoles, freeTierRoleIds, isFreeTier, managedRoleIds, tierRoles } from './desired-roles';
export { firstDeclineOf, isDeclinedRead, nextGraceDeadline } from './grace';
export type { ChargeRead, KeptDecline } from './grace';
export { GRANT_IN_FLIGHT_MS, plan, shouldHoldRemovals } from './plan';
export { DEFAULT_SETTINGS, SETTING_BOUNDS, MODES, applySettingsChange } from './settings';
export type { SettingsChange } from './settings';

export interface PlanUserInput {
  guild: GuildContext;
  userId: string;
  /** The user's member state in each campaign (missing campaigns mean "not a member"); empty when unlinked. */
  members: readonly MemberState[];
  currentRoleIds: ReadonlySet<string> | null;
  ledger: readonly LedgerEntry[];
  now: Date;
  unlinkedReason?: string;
  managed?: ReadonlySet<string>;
  /** The user is joining the guild through the join page now: the joiner role applies if no tier gives a role. */
  joining?: boolean;
}

export interface PlannedUser {
  entitlements: Entitlement[];
  desired: DesiredRoles;
  plan: UserPlan;
}

/** entitlement → desiredRoles → plan for one user of one guild: what every trigger calls. */
export function planUser(input: PlanUserInput): PlannedUser {
  const { guild } = input;
  const entitlements = guild.campaignIds.map((campaignId) =>
    entitlement(campaignId, input.members.find((m) => m.campaignId === campaignId) ?? null, guild.settings, input.now),
  );
  // Joined through the join page now, or earlier (the ledger holds a joiner grant, maybe of a role
  // the server has replaced since: the new joiner role takes its place).
  const joiner = input.joining === true || input.ledger.some((e) => e.kind === 'joiner');
  const desired = desiredRoles(entitlements, guild, { joiner });
  const userPlan = plan({
    guild,
    userId: input.userId,
    desired,
    currentRoleIds: input.currentRoleIds,
    ledger: input.ledger,
    entitlements,
    unconfirmedCampaignIds: new Set(input.members.filter((m) => m.unconfirmed === true).map((m) => m.campaignId)),
    now: input.now,
    ...(input.unlinkedReason !== undefined ? { unlinkedReason: input.unlinkedReason } : {}),
    ...(input.managed !== undefined ? { managed: input.managed } : {}),
  });
  return { entitlements, desired, plan: userPlan };
}
