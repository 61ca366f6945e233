import type { CampaignRepository, TierRow } from '../../edges/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { MappingRepository } from '../../edges/store/repositories/mapping-repository';
import type { GuildSnapshot, GuildSnapshotCache } from '../../edges/discord/guild-snapshot-cache';
import { checkRoleAssignable } from '../../edges/discord/role-hierarchy';
import type { GuildContext, GuildRoleInfo, GuildTier } from '../../core/planner/types';

/** The role ids a tier's `chat_role_ids`/`discord_role_ids` give one guild. */
export function tierRoleIdsForGuild(roleIds: TierRow['roleIds'], guildId: string): string[] {
  return [...new Set([...roleIds.everywhere, ...(roleIds.byGuild[guildId] ?? [])])];
}

export function toGuildTier(row: TierRow, guildId: string): GuildTier {
  return {
    campaignId: row.campaignId,
    tierId: row.id,
    title: row.title,
    amountCents: row.amountCents,
    roleIds: tierRoleIdsForGuild(row.roleIds, guildId),
    removed: row.removedAt !== null,
  };
}

/** Every role of the guild but @everyone, with the problem that keeps the bot from managing it. */
export function toGuildRoles(guildId: string, snapshot: GuildSnapshot): Map<string, GuildRoleInfo> {
  const roles = new Map<string, GuildRoleInfo>();
  for (const role of snapshot.roles) {
    if (role.id === guildId) continue;
    const check = checkRoleAssignable({ guildId, roles: snapshot.roles, botRoleIds: snapshot.botRoleIds, roleId: role.id });
    roles.set(role.id, {
      id: role.id,
      name: role.name,
      problem: check.ok ? null : { message: check.error.message, fix: check.error.fix },
    });
  }
  return roles;
}

export interface GuildContextLoader {
  load(guildId: string): Promise<GuildContext>;
}

/** Gathers what the planner needs about a guild: settings, campaigns, tiers, `/map` rows and roles. */
export function createGuildContextLoader(deps: {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  mappings: MappingRepository;
  discordSnapshots: GuildSnapshotCache;
}): GuildContextLoader {
  return {
    async load(guildId) {
      const [settings, campaignIds, mappings, snapshot] = await Promise.all([
        deps.guilds.settings(guildId),
        deps.guilds.campaignsOf(guildId),
        deps.mappings.of(guildId),
        deps.discordSnapshots.get(guildId),
      ]);
      const tiers = await deps.campaigns.tiersOf(campaignIds);
      return {
        guildId,
        settings,
        campaignIds,
        tiers: tiers.map((t) => toGuildTier(t, guildId)),
        mappings: mappings.filter((m) => campaignIds.includes(m.campaignId)),
        roles: toGuildRoles(guildId, snapshot),
      };
    },
  };
}
