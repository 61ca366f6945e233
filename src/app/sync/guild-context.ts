import { withConnectorLimits } from '../../core/connector-limit';
import { guildRoles } from '../../core/guild-roles';
import type { GuildContext } from '../../core/planner/types';
import { guildTier } from '../../core/tier-roles';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { MappingRepository } from '../../edges/outbound/store/repositories/mapping-repository';
import type { RuleRoleRepository } from '../../edges/outbound/store/repositories/rule-role-repository';
import type { RoleAllowanceRepository } from '../../edges/outbound/store/repositories/role-allowance-repository';

export interface GuildContextLoader {
  load(guildId: string): Promise<GuildContext>;
}

/** Gathers what the planner needs about a guild: settings, campaigns, tiers, `/map` rows, roles by tenure and amount, roles and their allowances. */
export function createGuildContextLoader(deps: {
  guilds: Pick<GuildRepository, 'settings' | 'servedCampaigns'>;
  campaigns: Pick<CampaignRepository, 'tiersOf'>;
  mappings: Pick<MappingRepository, 'of'>;
  ruleRoles: Pick<RuleRoleRepository, 'of'>;
  roleAllowances: Pick<RoleAllowanceRepository, 'of'>;
  discordSnapshots: Pick<GuildSnapshotCache, 'get'>;
}): GuildContextLoader {
  return {
    async load(guildId) {
      const [settings, served, mappings, ruleRoles, snapshot, allowances] = await Promise.all([
        deps.guilds.settings(guildId),
        deps.guilds.servedCampaigns(guildId),
        deps.mappings.of(guildId),
        deps.ruleRoles.of(guildId),
        deps.discordSnapshots.get(guildId),
        deps.roleAllowances.of(guildId),
      ]);
      const campaignIds = served.map((c) => c.campaignId);
      const tiers = await deps.campaigns.tiersOf(campaignIds);
      const servedMappings = mappings.filter((m) => campaignIds.includes(m.campaignId));
      // `/connect` stores the connector and their role together (null for the owner and the environment).
      const connectors = served.flatMap((c) =>
        c.connectedBy !== null && c.connectorRoleId !== null
          ? [{ campaignId: c.campaignId, userId: c.connectedBy, roleId: c.connectorRoleId }]
          : [],
      );
      const connectorRoles = new Map(connectors.map((c) => [c.campaignId, c.roleId]));
      return {
        guildId,
        settings,
        campaignIds,
        // A tier's own roles are judged against whoever connected its campaign (src/core/connector-limit.ts).
        tiers: withConnectorLimits(
          tiers.map((t) => guildTier(t, guildId)),
          servedMappings,
          snapshot.roles,
          connectorRoles,
          new Set(allowances.map((a) => a.roleId)),
        ),
        mappings: servedMappings,
        // Every load judges the roles afresh (a tier refresh, a role's new permissions): a role with
        // dangerous permissions nobody allowed is held back (src/core/authority.ts, heldBack).
        roles: guildRoles(guildId, snapshot, new Map(allowances.map((a) => [a.roleId, a.permissions]))),
        ruleRoles,
        ...(connectors.length > 0 ? { connectors } : {}),
      };
    },
  };
}
