import type { GuildApplyOutcome } from '../sync';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { MappingRepository } from '../../edges/outbound/store/repositories/mapping-repository';
import type { Logger } from '../../shared/logger';
import { roleIdsForGuild } from '../../core/tier-roles';
import { type Actor, type ActorAuthority, NOT_A_MEMBER } from './actor-authority';
import type { TiersService } from './tiers-service';
import type { RoleAllowances } from './role-allowances';

/** Reconciles every member of a guild whose roles may be affected, and says how many changed. */
export type ReconcileGuild = (guildId: string, trigger: 'map' | 'settings') => Promise<GuildApplyOutcome>;

export type MapOutcome =
  /**
   * `allowed`: the role's dangerous permissions, which the owner or the administrator who mapped it
   * allowed by naming it (src/app/admin/role-allowances.ts); null for a role without any.
   */
  | {
      kind: 'done';
      tierTitle: string;
      roleName: string;
      changed: boolean;
      followUp: Promise<GuildApplyOutcome>;
      allowed?: string[] | null;
    }
  | { kind: 'unknown_tier' }
  /** The bot cannot manage the role (above it, managed, @everyone, deleted). */
  | { kind: 'role_refused'; message: string; fix: string }
  /** The person asking may not manage the role (at or above their highest role, a dangerous permission). */
  | { kind: 'not_allowed'; message: string; fix: string }
  /** `viaTier`: the role is the tier's own Discord role on the service (`chat_role_ids`), which only the service changes. */
  | { kind: 'not_mapped'; tierTitle: string; roleName: string; viaTier: boolean };

export function createMappingService(deps: {
  mappings: MappingRepository;
  guilds: Pick<GuildRepository, 'settings' | 'saveSettings' | 'bind'>;
  tiers: TiersService;
  authority: ActorAuthority;
  allowances: Pick<RoleAllowances, 'allowNamed' | 'forgetRole'>;
  reconcileGuild: ReconcileGuild;
  logger: Logger;
}): MappingService {
  function inBackground(guildId: string): Promise<GuildApplyOutcome> {
    const run = deps.reconcileGuild(guildId, 'map');
    run.catch((error) => deps.logger.error({ err: error, guildId }, 'reconcile after a mapping change failed'));
    return run;
  }

  /**
   * Forgets `/map` rows whose role was deleted from the server: Discord's role picker cannot name a
   * deleted role, so `/unmap` could never remove them. Runs on the fresh roles the actor was read with.
   */
  async function forgetDeletedRoles(guildId: string, roles: ReadonlyArray<{ id: string }>): Promise<void> {
    const existing = new Set(roles.map((r) => r.id));
    for (const row of await deps.mappings.of(guildId)) {
      if (existing.has(row.roleId)) continue;
      await deps.mappings.remove(guildId, row);
      deps.logger.info({ guildId, roleId: row.roleId, tierId: row.tierId }, 'forgot the mapping of a deleted role');
    }
  }

  return {
    async forgetDeletedRole(guildId: string, roleId: string): Promise<void> {
      const rows = await deps.mappings.removeRole(guildId, roleId);
      await deps.allowances.forgetRole(guildId, roleId);
      const settings = await deps.guilds.settings(guildId);
      const cleared = { formerPatronRoleId: settings.formerPatronRoleId === roleId, followerRoleId: settings.followerRoleId === roleId };
      if (cleared.formerPatronRoleId || cleared.followerRoleId) {
        await deps.guilds.saveSettings(guildId, {
          ...settings,
          ...(cleared.formerPatronRoleId ? { formerPatronRoleId: null } : {}),
          ...(cleared.followerRoleId ? { followerRoleId: null } : {}),
        });
      }
      if (rows > 0 || cleared.formerPatronRoleId || cleared.followerRoleId) {
        deps.logger.info({ guildId, roleId, mappings: rows, ...cleared }, 'a deleted role was removed from the mappings and settings');
      }
    },

    async map(actor: Actor, tierValue: string, roleId: string): Promise<MapOutcome> {
      const { guildId } = actor;
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return { ...NOT_A_MEMBER };
      const decision = deps.authority.decide(view, roleId, { botMustManage: true });
      if (!decision.ok)
        return { kind: decision.kind === 'not_allowed' ? 'not_allowed' : 'role_refused', message: decision.message, fix: decision.fix };
      await forgetDeletedRoles(guildId, view.snapshot.roles);
      // Only the owner or an administrator may map a role with dangerous permissions: naming it is their allowance.
      const allowed = await deps.allowances.allowNamed(view, roleId);
      // An open campaign (Ko-fi's page) is served by a server from its first mapping there.
      await deps.guilds.bind(guildId, tier.campaignId);
      const changed = await deps.mappings.add(guildId, { campaignId: tier.campaignId, tierId: tier.id, roleId }, actor.userId);
      if (changed) deps.logger.info({ guildId, userId: actor.userId, roleId, tierId: tier.id }, 'tier mapped to a role');
      return {
        kind: 'done',
        tierTitle: tier.title,
        roleName: decision.role?.name ?? roleId,
        changed,
        followUp: changed || allowed ? inBackground(guildId) : Promise.resolve({ kind: 'applied' as const, members: 0, changes: 0 }),
        allowed,
      };
    },

    async unmap(actor: Actor, tierValue: string, roleId: string): Promise<MapOutcome> {
      const { guildId } = actor;
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return { ...NOT_A_MEMBER };
      const decision = deps.authority.decide(view, roleId, { botMustManage: false });
      if (!decision.ok) return { kind: 'not_allowed', message: decision.message, fix: decision.fix };
      const roleName = decision.role?.name ?? roleId;
      await forgetDeletedRoles(guildId, view.snapshot.roles);
      const removed = await deps.mappings.remove(guildId, { campaignId: tier.campaignId, tierId: tier.id, roleId });
      if (!removed)
        return {
          kind: 'not_mapped',
          tierTitle: tier.title,
          roleName,
          viaTier: roleIdsForGuild(tier.roleIds, guildId).includes(roleId),
        };
      deps.logger.info({ guildId, userId: actor.userId, roleId, tierId: tier.id }, 'tier unmapped from a role');
      return { kind: 'done', tierTitle: tier.title, roleName, changed: true, followUp: inBackground(guildId) };
    },
  };
}

/**
 * `/map` and `/unmap`. The actor's authority over the role is read from Discord (src/core/authority.ts:
 * nobody makes the bot grant a role they could not grant themselves); a role the bot cannot manage is
 * refused up front with the fix (the bot would only ever fail to grant it); a change reconciles the
 * guild in the background, and `followUp` resolves with how many role changes it made.
 */
export interface MappingService {
  /**
   * A role was deleted in Discord: its `/map` rows go, and a former-patron or follower setting
   * that named it is cleared (the ledger rows of that role are forgotten by the next plan).
   */
  forgetDeletedRole(guildId: string, roleId: string): Promise<void>;
  map(actor: Actor, tierValue: string, roleId: string): Promise<MapOutcome>;
  /** Unmapping takes the role away from the tier's patrons: the same authority over it as mapping. */
  unmap(actor: Actor, tierValue: string, roleId: string): Promise<MapOutcome>;
}
