import { checkRoleAuthority, dangerousBitsOf, listed, permissionNames } from '../../core/authority';
import { tierRoles } from '../../core/planner/desired-roles';
import { checkRoleAssignable } from '../../core/role-hierarchy';
import type { RoleAllowanceRepository } from '../../edges/outbound/store/repositories/role-allowance-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { GuildApplyOutcome } from '../sync';
import type { GuildContextLoader } from '../sync/guild-context';
import { type Actor, type ActorAuthority, type ActorView, NOT_A_MEMBER } from './actor-authority';
import type { ReconcileGuild } from './mapping-service';
import type { RefusalFacts } from '../../core/refusal-text';

export type AllowOutcome =
  /** Tierlink may give the role now; `tiers` name it here, and it is `settings` (the former-patron role…). */
  | {
      kind: 'allowed';
      roleName: string;
      permissions: string[];
      tiers: string[];
      settings: string[];
      followUp: Promise<GuildApplyOutcome>;
    }
  /** The allowance was taken back: nobody new gets the role; who holds it keeps it. */
  | { kind: 'withdrawn'; roleName: string }
  /** There was no allowance to take back. */
  | { kind: 'not_allowed_before'; roleName: string }
  /** The role has no dangerous permission: Tierlink gives it without an allowance. */
  | { kind: 'not_dangerous'; roleName: string }
  /**
   * The role has no dangerous permission, but a tier names it above whoever connected its campaign
   * (src/core/connector-limit.ts): the person asking may give it, and now Tierlink does.
   */
  | { kind: 'allowed_above_connector'; roleName: string; tiers: string[]; settings: string[]; followUp: Promise<GuildApplyOutcome> }
  /** The person asking is neither the owner nor an administrator. */
  | { kind: 'not_allowed'; message: string; fix: string }
  /** The bot cannot give the role at all (above its role, managed, @everyone, deleted). */
  | { kind: 'role_refused'; message: string; fix: string; facts?: RefusalFacts };

/** Why only the owner or an administrator allows such a role, in words for the person asking. */
export const ALLOW_REFUSAL = {
  message:
    'Only the server owner or an administrator can allow Tierlink to give a role with powerful permissions: everyone ' +
    'Tierlink gives it to would have that power.',
  fix: 'Ask the server owner or an administrator to run /allow-role.',
};

/**
/** Who gets an allowed role, in words: "to the patrons of Insider and as the follower role". */
export function recipientsOf(outcome: { tiers: readonly string[]; settings: readonly string[] }): string {
  const parts = [
    ...(outcome.tiers.length > 0 ? [`to the patrons of ${listed(outcome.tiers)}`] : []),
    ...(outcome.settings.length > 0 ? [`as ${listed(outcome.settings)}`] : []),
  ];
  return parts.length > 0 ? parts.join(' and ') : 'whenever a tier names it';
}

export function createRoleAllowances(deps: {
  authority: ActorAuthority;
  allowances: RoleAllowanceRepository;
  contexts: GuildContextLoader;
  reconcileGuild: ReconcileGuild;
  clock: Clock;
  logger: Logger;
}): RoleAllowances {
  const { clock, logger } = deps;

  /** What names the role in this guild: the tiers whose role it is, and the setting roles it is. */
  async function namedBy(guildId: string, roleId: string): Promise<{ tiers: string[]; settings: string[] }> {
    const guild = await deps.contexts.load(guildId);
    const tiers = guild.tiers.filter((t) => !t.removed && tierRoles(guild, t).some((r) => r.roleId === roleId)).map((t) => t.title);
    const { formerPatronRoleId, followerRoleId, joinerRoleId } = guild.settings;
    const settings: string[] = [];
    if (formerPatronRoleId === roleId) settings.push('the former-patron role');
    if (followerRoleId === roleId) settings.push('the follower role');
    if (joinerRoleId === roleId) settings.push('the joiner role');
    return { tiers, settings };
  }

  function inBackground(guildId: string): Promise<GuildApplyOutcome> {
    const run = deps.reconcileGuild(guildId, 'settings');
    run.catch((error) => logger.error({ err: error, guildId }, 'reconcile after a role was allowed failed'));
    return run;
  }

  return {
    async set(actor: Actor, roleId: string, allowed: boolean): Promise<AllowOutcome> {
      const { guildId } = actor;
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return { kind: 'not_allowed', message: NOT_A_MEMBER.message, fix: NOT_A_MEMBER.fix };
      if (!view.authority.isOwner && !view.authority.isAdministrator) return { kind: 'not_allowed', ...ALLOW_REFUSAL };
      const role = view.snapshot.roles.find((r) => r.id === roleId);
      const roleName = role?.name ?? roleId;
      // An Administrator decides only for roles below their own highest one, as Discord lets them manage.
      const may = role ? checkRoleAuthority(view.authority, role) : null;
      if (may && !may.ok) {
        const { code, message, fix, highestName } = may.error;
        return { kind: 'role_refused', message, fix, facts: { code, roleName, highestName: highestName ?? null } };
      }
      if (!allowed) {
        const withdrawn = await deps.allowances.withdraw(guildId, roleId);
        if (withdrawn) logger.info({ guildId, userId: actor.userId, roleId }, 'allowance of a role with dangerous permissions taken back');
        return { kind: withdrawn ? 'withdrawn' : 'not_allowed_before', roleName };
      }
      const check = checkRoleAssignable({ guildId, roles: view.snapshot.roles, botRoleIds: view.snapshot.botRoleIds, roleId });
      if (!check.ok) {
        const { code, roleName, botRoleName } = check.error;
        return { kind: 'role_refused', message: check.error.message, fix: check.error.fix, facts: { code, roleName, botRoleName } };
      }
      const bits = dangerousBitsOf(check.value.permissions);
      if (bits === 0n) {
        const guild = await deps.contexts.load(guildId);
        if (!guild.tiers.some((t) => !t.removed && t.held?.has(roleId))) return { kind: 'not_dangerous', roleName };
        // The person passed the hierarchy for this role above: their allowance lifts the connector's limit.
        await deps.allowances.allow(guildId, { roleId, permissions: 0n, allowedBy: actor.userId, allowedAt: clock.now() });
        logger.info({ guildId, userId: actor.userId, roleId }, 'role above a campaign’s connector allowed');
        return { kind: 'allowed_above_connector', roleName, ...(await namedBy(guildId, roleId)), followUp: inBackground(guildId) };
      }
      await deps.allowances.allow(guildId, { roleId, permissions: bits, allowedBy: actor.userId, allowedAt: clock.now() });
      logger.info({ guildId, userId: actor.userId, roleId, permissions: bits.toString() }, 'role with dangerous permissions allowed');
      return {
        kind: 'allowed',
        roleName,
        permissions: permissionNames(bits),
        ...(await namedBy(guildId, roleId)),
        followUp: inBackground(guildId),
      };
    },

    async allowNamed(view: ActorView, roleId: string): Promise<string[] | null> {
      if (!view.authority.isOwner && !view.authority.isAdministrator) return null;
      const role = view.snapshot.roles.find((r) => r.id === roleId);
      const bits = role ? dangerousBitsOf(role.permissions) : 0n;
      if (bits === 0n) return null;
      const { guildId, userId } = view.actor;
      await deps.allowances.allow(guildId, { roleId, permissions: bits, allowedBy: userId, allowedAt: clock.now() });
      logger.info({ guildId, userId, roleId, permissions: bits.toString() }, 'role with dangerous permissions allowed by naming it');
      return permissionNames(bits);
    },

    async forgetRole(guildId: string, roleId: string): Promise<void> {
      await deps.allowances.withdraw(guildId, roleId);
    },
  };
}

/**
 * Allowances of roles with dangerous permissions (Administrator, Manage Roles, Ban Members…;
 * `DANGEROUS_PERMISSIONS` in src/core/authority.ts). A tier may name any role, on Patreon
 * (`discord_role_ids`) or with `/map`; one with such a permission is granted only once the server's
 * owner or an administrator allowed it by name, for the permissions it had then. The allowance is
 * given with `/allow-role` or on the dashboard, or by naming the role themselves in `/map` or
 * `/settings`; taking it back holds the role back for everyone not holding it yet.
 */
export interface RoleAllowances {
  /** `/allow-role role [allowed]`, and the dashboard's button: allows the role, or takes the allowance back. */
  set(actor: Actor, roleId: string, allowed: boolean): Promise<AllowOutcome>;
  /**
   * The owner or an administrator named a role with dangerous permissions in `/map` or `/settings`
   * (the authority rules let nobody else): that is their allowance of it, recorded like `/allow-role`'s.
   * Returns the permissions allowed, or null when there was nothing to allow.
   */
  allowNamed(view: ActorView, roleId: string): Promise<string[] | null>;
  /** A role was deleted in Discord: its allowance goes (a new role with the same powers must be allowed again). */
  forgetRole(guildId: string, roleId: string): Promise<void>;
}
