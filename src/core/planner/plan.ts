import { SETTING_ROLE_LABEL, grantReason, managedRoleIds, tierRoles } from './desired-roles';
import { type Said, type UnlinkedReason, UNSAID, grantWhy, standingFacts, unlinkedCode } from './reasons';
import type { BlockedChange, DesiredRoles, Entitlement, GuildContext, LedgerEntry, RoleChange, RoleProblem, UserPlan } from './types';

export interface PlanInput {
  guild: GuildContext;
  userId: string;
  desired: DesiredRoles;
  /** The member's roles now, or `null` when the user is not in the guild (nothing to do then). */
  currentRoleIds: ReadonlySet<string> | null;
  /** Our grants to this user in this guild. */
  ledger: readonly LedgerEntry[];
  /** The entitlements `desired` came from, to explain removals. */
  entitlements: readonly Entitlement[];
  /** When the user has no link (any more): the reason every removal gives, e.g. "unlinked with /unlink". */
  unlinkedReason?: UnlinkedReason;
  /** {@link managedRoleIds} of the guild; pass it when planning many users of one guild. */
  managed?: ReadonlySet<string>;
  /** Now: a ledger row younger than {@link GRANT_IN_FLIGHT_MS} may be a grant still on its way. */
  now: Date;
  /** False: the same changes without their reasons (`decideUser`). Absent: true. */
  words?: boolean;
}

/**
 * How long a recorded grant may still be on its way to Discord: another instance records a grant,
 * then sends it (waiting out rate limits if it must). Until then, a member who lacks the role is
 * not proof that the grant is gone, so its row is not forgotten; a later pass does it.
 */
export const GRANT_IN_FLIGHT_MS = 10 * 60_000;

/**
 * The role changes that bring one member from their current roles to their desired roles, each
 * with its reason.
 *
 * - A desired role the member lacks is added (again, if a hand removed one we granted).
 * - A role the member holds that we did not grant is never removed, unless the guild is `strict`
 *   and the role is one Tierlink manages; strict mode never removes a role that carries a dangerous
 *   permission (Administrator, Manage Roles, Ban Members…): taking staff powers away is for people.
 * - A role we granted that is no longer desired is removed; if the member already lost it, only
 *   the ledger row goes (`forget`), with no call to Discord; unless the grant was recorded so
 *   recently that its request may still be in flight (then nothing is planned for it yet).
 * - A change on a role the bot cannot manage is `blocked` with the fix, never sent; so is adding a
 *   role held back for its dangerous permissions (`GuildRoleInfo.heldBack`).
 * - A role that only an unconfirmed member state justifies (a webhook payload after a failed
 *   re-read) is kept or removed, never granted, so a replayed payload cannot raise entitlement.
 * - A campaign whose member could not be read (`unreadable`) freezes its roles: nothing we granted
 *   for it is removed or forgotten, and strict mode removes none of its tiers' roles (nor the
 *   former-patron or follower role) from this member.
 */
export function plan(input: PlanInput): UserPlan {
  const { guild, userId, desired, currentRoleIds, ledger } = input;
  const out: UserPlan = { guildId: guild.guildId, userId, changes: [], blocked: [] };
  if (!currentRoleIds) return out;
  const words = input.words !== false;
  const frozen = new Set<string>();
  for (const e of input.entitlements) if (e.unreadable) frozen.add(e.campaignId);

  const push = (change: RoleChange, held?: RoleProblem) => {
    const role = guild.roles.get(change.roleId);
    // A role held back (dangerous permissions nobody allowed, or above its campaign's connector) is
    // never added; taking it away goes on.
    const problem = change.op === 'forget' ? null : (role?.problem ?? (change.op === 'add' ? (role?.heldBack ?? held) : null) ?? null);
    if (change.op !== 'forget' && problem) {
      const blocked: BlockedChange = {
        op: change.op,
        roleId: change.roleId,
        roleName: change.roleName,
        reason: change.reason,
        ...(change.why ? { why: change.why } : {}),
        problem: { message: problem.message, fix: problem.fix, ...(problem.facts ? { facts: problem.facts } : {}) },
      };
      out.blocked.push(blocked);
    } else {
      out.changes.push(change);
    }
  };

  for (const grant of desired.grants.values()) {
    if (currentRoleIds.has(grant.roleId)) continue;
    // Only unconfirmed payloads justify it: kept if held, never granted.
    if (!grant.confirmed) continue;
    push(
      {
        op: 'add',
        roleId: grant.roleId,
        roleName: grant.roleName,
        ...(words ? { reason: grantReason(grant), why: grantWhy(grant) } : UNSAID),
        grant: { campaignId: grant.campaignId, tierId: grant.tierId, kind: grant.kind, sources: grant.sources },
      },
      grant.held,
    );
  }

  // Only strict mode reads it.
  const handled = guild.settings.strict ? new Set<string>() : null;
  for (const entry of ledger) {
    handled?.add(entry.roleId);
    if (desired.grants.has(entry.roleId)) continue;
    if (entry.campaignId !== null && frozen.has(entry.campaignId)) continue;
    const role = guild.roles.get(entry.roleId);
    const { reason, why }: Said = !words
      ? UNSAID
      : input.unlinkedReason !== undefined
        ? { reason: input.unlinkedReason, why: { code: 'unlinked', how: unlinkedCode(input.unlinkedReason) } }
        : removalReason(entry, input);
    if (!role) {
      out.changes.push({
        op: 'forget',
        roleId: entry.roleId,
        roleName: null,
        ...(words ? { reason: `${reason} (the role no longer exists)`, why: { code: 'roleDeleted', why } } : UNSAID),
      });
    } else if (!currentRoleIds.has(entry.roleId)) {
      if (input.now.getTime() - entry.recordedAt.getTime() < GRANT_IN_FLIGHT_MS) continue;
      out.changes.push({
        op: 'forget',
        roleId: entry.roleId,
        roleName: role.name,
        ...(words ? { reason: `${reason} (already removed)`, why: { code: 'alreadyRemoved', why } } : UNSAID),
      });
    } else {
      push({ op: 'remove', roleId: entry.roleId, roleName: role.name, reason, why, basis: 'ledger' });
    }
  }

  if (guild.settings.strict) {
    const managed = input.managed ?? managedRoleIds(guild);
    const kept = frozenRoleIds(guild, frozen);
    for (const roleId of currentRoleIds) {
      if (handled!.has(roleId) || desired.grants.has(roleId) || !managed.has(roleId) || kept.has(roleId)) continue;
      const role = guild.roles.get(roleId);
      if (!role || role.dangerous) continue;
      push({
        op: 'remove',
        roleId,
        roleName: role.name,
        ...(words
          ? {
              reason: `strict mode: ${role.name} is reserved for entitled patrons${input.unlinkedReason ? ` (${input.unlinkedReason})` : ''}`,
              why: { code: 'strict', role: role.name, unlinked: input.unlinkedReason ? unlinkedCode(input.unlinkedReason) : null },
            }
          : UNSAID),
        basis: 'strict',
      });
    }
  }
  return out;
}

/** The roles an unreadable member keeps in strict mode: every role of the frozen campaigns' tiers, and the setting roles. */
function frozenRoleIds(guild: GuildContext, frozen: ReadonlySet<string>): Set<string> {
  const ids = new Set<string>();
  if (frozen.size === 0) return ids;
  for (const tier of guild.tiers) if (frozen.has(tier.campaignId)) for (const { roleId } of tierRoles(guild, tier)) ids.add(roleId);
  for (const row of guild.mappings) if (frozen.has(row.campaignId)) ids.add(row.roleId);
  if (guild.settings.formerPatronRoleId) ids.add(guild.settings.formerPatronRoleId);
  if (guild.settings.followerRoleId) ids.add(guild.settings.followerRoleId);
  return ids;
}

function titleOf(guild: GuildContext, campaignId: string | null, tierId: string | null): string {
  const tier = guild.tiers.find((t) => t.campaignId === campaignId && t.tierId === tierId);
  return tier?.title ?? `tier ${tierId ?? '?'}`;
}

function removalReason(entry: LedgerEntry, input: PlanInput): Said {
  const { guild, entitlements, desired } = input;
  const ent = entitlements.find((e) => e.campaignId === entry.campaignId);
  const standing = ent ? standingFacts(ent) : null;
  if (entry.kind === 'tenure' || entry.kind === 'amount') {
    const rule = (guild.ruleRoles ?? []).find((r) => r.roleId === entry.roleId && r.kind === entry.kind);
    if (!rule) return { reason: `this is no longer one of the server's ${entry.kind} roles`, why: { code: 'ruleGone', kind: entry.kind } };
    return rule.kind === 'tenure'
      ? {
          reason: `no longer an entitled patron of ${rule.months} or more months${ent ? ` (${ent.reason})` : ''}`,
          why: { code: 'tenureEnded', months: rule.months, standing },
        }
      : {
          reason: `no longer entitled to ${(rule.cents / 100).toFixed(2)} or more a month${ent ? ` (${ent.reason})` : ''}`,
          why: { code: 'amountEnded', cents: rule.cents, standing },
        };
  }
  if (entry.kind === 'tier') {
    if (entry.campaignId === null || !guild.campaignIds.includes(entry.campaignId)) {
      return { reason: 'this server no longer serves that campaign', why: { code: 'campaignGone' } };
    }
    const title = titleOf(guild, entry.campaignId, entry.tierId);
    if (!ent) return { reason: `no longer entitled to ${title}: not a member of the campaign`, why: { code: 'notMember', tier: title } };
    if (ent.kind === 'active' || ent.kind === 'grace') {
      if (entry.tierId !== null && ent.tierIds.includes(entry.tierId)) {
        const tier = guild.tiers.find((t) => t.campaignId === entry.campaignId && t.tierId === entry.tierId);
        if (!tier || tier.removed) return { reason: `${title} no longer exists on the campaign`, why: { code: 'tierGone', tier: title } };
        if (guild.settings.mode === 'highest')
          return { reason: `only the highest tier's roles are granted in this server (mode highest)`, why: { code: 'highestOnly' } };
        return { reason: `${title} no longer grants this role`, why: { code: 'tierNoRole', tier: title } };
      }
      const now = ent.tierIds.map((id) => titleOf(guild, ent.campaignId, id));
      return {
        reason: `no longer entitled to ${title} (now: ${now.length > 0 ? now.join(', ') : 'no tier'})`,
        why: { code: 'tierChanged', tier: title, now },
      };
    }
    return {
      reason: `no longer entitled to ${title}: ${ent.reason}`,
      why: { code: 'tierEnded', tier: title, standing: standingFacts(ent) },
    };
  }
  const role = entry.kind;
  const label = SETTING_ROLE_LABEL[role];
  const configured =
    role === 'former'
      ? guild.settings.formerPatronRoleId
      : role === 'follower'
        ? guild.settings.followerRoleId
        : (guild.settings.joinerRoleId ?? null);
  if (configured !== entry.roleId)
    return { reason: `this is no longer the server's ${label} role`, why: { code: 'settingRoleChanged', role } };
  const hasTierRoles = [...desired.grants.values()].some((g) => g.kind === 'tier');
  if (hasTierRoles)
    return {
      reason: `${role === 'joiner' ? 'a tier gives roles now' : 'pledging again'}: the ${label} role gives way to tier roles`,
      why: { code: 'givesWay', role },
    };
  return {
    reason: `the ${label} role no longer applies${ent ? `: ${ent.reason}` : ''}`,
    why: { code: 'settingRoleEnded', role, standing },
  };
}

/**
 * The mass-removal circuit breaker of a full sync: hold when the removals are more than
 * `removalThresholdPercent` of our grants in the guild *and* at least `removalThresholdMin`
 * (defaults 10% and 25). A small guild can then still lose a few roles, and a broken read of the
 * service cannot strip a large one.
 */
export function shouldHoldRemovals(
  removals: number,
  grantsInGuild: number,
  settings: Pick<GuildContext['settings'], 'removalThresholdPercent' | 'removalThresholdMin'>,
): { hold: boolean; reason: string | null } {
  const share = grantsInGuild === 0 ? (removals > 0 ? 100 : 0) : (removals / grantsInGuild) * 100;
  const hold = removals >= settings.removalThresholdMin && share > settings.removalThresholdPercent;
  return {
    hold,
    reason: hold
      ? `${removals} removals (${share.toFixed(1)}% of ${grantsInGuild} grants) exceed this server's threshold of ` +
        `${settings.removalThresholdPercent}% and at least ${settings.removalThresholdMin}; run /sync force:true to apply them`
      : null,
  };
}
