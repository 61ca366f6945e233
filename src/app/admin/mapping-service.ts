import type { GuildApplyOutcome } from '../sync';
import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { MappingRepository } from '../../edges/store/repositories/mapping-repository';
import type { GuildSnapshotCache } from '../../edges/discord/guild-snapshot-cache';
import type { Logger } from '../../shared/logger';
import { roleIdsForGuild } from '../../core/tier-roles';
import { checkRole } from './guild-role-check';
import type { TiersService } from './tiers-service';

/** Reconciles every member of a guild whose roles may be affected, and says how many changed. */
export type ReconcileGuild = (guildId: string, trigger: 'map' | 'settings') => Promise<GuildApplyOutcome>;

export type MapOutcome =
  | { kind: 'done'; tierTitle: string; roleName: string; changed: boolean; followUp: Promise<GuildApplyOutcome> }
  | { kind: 'unknown_tier' }
  | { kind: 'role_refused'; message: string; fix: string }
  /** `viaTier`: the role is the tier's own Discord role on the service (`chat_role_ids`), which only the service changes. */
  | { kind: 'not_mapped'; tierTitle: string; roleName: string; viaTier: boolean };

/**
 * `/map` and `/unmap`. A role the bot cannot manage is refused up front with the fix (the bot
 * would only ever fail to grant it); a change reconciles the guild in the background, and
 * `followUp` resolves with how many role changes it made.
 */
export function createMappingService(deps: {
  mappings: MappingRepository;
  guilds: Pick<GuildRepository, 'settings' | 'saveSettings'>;
  tiers: TiersService;
  snapshots: GuildSnapshotCache;
  reconcileGuild: ReconcileGuild;
  logger: Logger;
}) {
  function inBackground(guildId: string): Promise<GuildApplyOutcome> {
    const run = deps.reconcileGuild(guildId, 'map');
    run.catch((error) => deps.logger.error({ err: error, guildId }, 'reconcile after a mapping change failed'));
    return run;
  }

  /**
   * Forgets `/map` rows whose role was deleted from the server: Discord's role picker cannot name a
   * deleted role, so `/unmap` could never remove them. Runs on the fresh snapshot `checkRole` read.
   */
  async function forgetDeletedRoles(guildId: string): Promise<void> {
    const snapshot = await deps.snapshots.get(guildId);
    const existing = new Set(snapshot.roles.map((r) => r.id));
    for (const row of await deps.mappings.of(guildId)) {
      if (existing.has(row.roleId)) continue;
      await deps.mappings.remove(guildId, row);
      deps.logger.info({ guildId, roleId: row.roleId, tierId: row.tierId }, 'forgot the mapping of a deleted role');
    }
  }

  return {
    /**
     * A role was deleted in Discord: its `/map` rows go, and a former-patron or follower setting
     * that named it is cleared (the ledger rows of that role are forgotten by the next plan).
     */
    async forgetDeletedRole(guildId: string, roleId: string): Promise<void> {
      const rows = await deps.mappings.removeRole(guildId, roleId);
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

    async map(guildId: string, tierValue: string, roleId: string, actorId: string): Promise<MapOutcome> {
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      const role = await checkRole(deps.snapshots, guildId, roleId);
      if (!role.ok) return { kind: 'role_refused', message: role.message, fix: role.fix };
      await forgetDeletedRoles(guildId);
      const changed = await deps.mappings.add(guildId, { campaignId: tier.campaignId, tierId: tier.id, roleId }, actorId);
      return {
        kind: 'done',
        tierTitle: tier.title,
        roleName: role.name,
        changed,
        followUp: changed ? inBackground(guildId) : Promise.resolve({ kind: 'applied' as const, members: 0, changes: 0 }),
      };
    },

    async unmap(guildId: string, tierValue: string, roleId: string): Promise<MapOutcome> {
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      deps.snapshots.invalidate(guildId);
      const snapshot = await deps.snapshots.get(guildId);
      const roleName = snapshot.roles.find((r) => r.id === roleId)?.name ?? roleId;
      await forgetDeletedRoles(guildId);
      const removed = await deps.mappings.remove(guildId, { campaignId: tier.campaignId, tierId: tier.id, roleId });
      if (!removed)
        return {
          kind: 'not_mapped',
          tierTitle: tier.title,
          roleName,
          viaTier: roleIdsForGuild(tier.roleIds, guildId).includes(roleId),
        };
      return { kind: 'done', tierTitle: tier.title, roleName, changed: true, followUp: inBackground(guildId) };
    },
  };
}

export type MappingService = ReturnType<typeof createMappingService>;
