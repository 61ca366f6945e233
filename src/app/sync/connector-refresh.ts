import type { GuildContext } from '../../core/planner/types';
import { highestRoleOf } from '../../core/role-hierarchy';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { Logger } from '../../shared/logger';

/**
 * Keeps the role a campaign's tiers are held below (src/core/connector-limit.ts) in step with its
 * connector's place in the server: the full sync lists every member, so each night the Administrator
 * who connected a campaign is judged by the highest role they hold now. Demoted, the campaign gives
 * less; promoted, more. A connector who has become the server's owner is no longer limited, as if
 * the owner had connected the campaign. A connector the listing did not show (they left, or it
 * failed first) keeps the stored role.
 */
export interface ConnectorRefresh {
  /** `listed`: the roles the listing showed for the connectors it saw, by user id. */
  refresh(guild: Pick<GuildContext, 'guildId' | 'connectors'>, listed: ReadonlyMap<string, readonly string[]>): Promise<void>;
}

export function createConnectorRefresh(deps: {
  guilds: Pick<GuildRepository, 'setConnectorRole'>;
  snapshots: Pick<GuildSnapshotCache, 'get'>;
  directory: Pick<GuildDirectory, 'getGuild'>;
  logger: Logger;
}): ConnectorRefresh {
  return {
    async refresh(guild, listed) {
      const seen = (guild.connectors ?? []).filter((c) => listed.has(c.userId));
      if (seen.length === 0) return;
      const { roles } = await deps.snapshots.get(guild.guildId);
      // A failed read of the owner lifts no limit tonight, and stops no other connector's refresh.
      const ownerId = await deps.directory.getGuild(guild.guildId).then(
        (info) => info.ownerId,
        () => null,
      );
      for (const connector of seen) {
        if (connector.userId === ownerId) {
          await deps.guilds.setConnectorRole(guild.guildId, connector.campaignId, connector.userId, null);
          deps.logger.info(
            { guildId: guild.guildId, campaignId: connector.campaignId, userId: connector.userId },
            'whoever connected the campaign now owns the server: its tiers give every role they name again',
          );
          continue;
        }
        const highest = highestRoleOf(guild.guildId, roles, listed.get(connector.userId)!);
        if (!highest || highest.id === connector.roleId) continue;
        await deps.guilds.setConnectorRole(guild.guildId, connector.campaignId, connector.userId, highest.id);
        deps.logger.info(
          { guildId: guild.guildId, campaignId: connector.campaignId, userId: connector.userId, was: connector.roleId, now: highest.id },
          'the highest role of whoever connected the campaign changed: its tiers now give only roles below the new one',
        );
      }
    },
  };
}
