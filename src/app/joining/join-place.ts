import { type PlannedUser, planUser, tierRoles } from '../../core/planner';
import type { GuildContext } from '../../core/planner/types';
import type { Cadence } from '../../core/i18n';
import { type Pricing, pricingOf } from '../../core/i18n/price';
import { CREATE_INSTANT_INVITE, MANAGE_ROLES, botGuildPermissions } from '../../core/role-hierarchy';
import { DiscordProblemError } from '../../edges/outbound/discord/discord-problem';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import { PATREON, patreonStateOf } from '../../edges/outbound/patreon/patreon-source';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { Clock } from '../../shared/clock';
import type { LinkService } from '../linking/link-service';
import type { GuildContextLoader } from '../sync/guild-context';
import type { JoinLink, JoinLinks } from './join-links';

/** A tier that lets a patron in: its price as the campaign states it, and the roles it gives in this server. */
export interface JoinTier {
  title: string;
  amountCents: number;
  /** ISO 4217: the campaign's, else PATREON_CURRENCY. */
  currency: string;
  /** How often patrons pay: the campaign's `is_monthly` (a month, or per creation); a month when not read yet. */
  cadence: Cadence;
  /** What a per-creation campaign calls a creation (Patreon's `pay_per_name`), as the creator typed it. */
  payPerName: string | null;
  roles: string[];
}

/** A server's join page: where it leads and who gets in. */
export interface JoinPlace {
  guildId: string;
  guildName: string | null;
  campaignName: string;
  /** The campaign's page on Patreon, where people pledge. */
  pledgeUrl: string | null;
  /** Published tiers that give a role here, cheapest first. */
  tiers: JoinTier[];
  /** `/settings join_non_patrons:true`: anyone with a Patreon account may join. */
  openToEveryone: boolean;
  link: JoinLink;
}

/** Why a join page cannot add anyone now; `ready` when it can. */
export type JoinReadiness = 'ready' | 'not_connected' | 'bot_not_in_server' | 'bot_lacks_invite' | 'bot_lacks_manage_roles';

/** What the planner makes of someone joining now, from their stored memberships. */
export interface JoinPreview {
  planned: PlannedUser;
  /** A tier gives them a role here, or the server lets everyone in. */
  admitted: boolean;
}

export interface JoinPlacesDeps {
  guilds: Pick<GuildRepository, 'name' | 'campaignsOf' | 'settings'>;
  campaigns: Pick<CampaignRepository, 'tiersOf' | 'get'>;
  snapshots: Pick<SnapshotRepository, 'forExternalUser'>;
  contexts: GuildContextLoader;
  discordSnapshots: Pick<GuildSnapshotCache, 'get'>;
  links: JoinLinks;
  served: LinkService['servedCampaigns'];
  clock: Clock;
  /** The currency of prices whose campaign does not state one (PATREON_CURRENCY); US dollars when absent. */
  currency?: string;
}

export function createJoinPlaces(deps: JoinPlacesDeps): JoinPlaces {
  function accessTiers(guild: GuildContext, published: ReadonlySet<string>, pricing: ReadonlyMap<string, Pricing>): JoinTier[] {
    const fallback = pricingOf(null, deps.currency);
    return guild.tiers
      .filter((t) => !t.removed && published.has(`${t.campaignId}/${t.tierId}`))
      .map((t) => ({
        title: t.title,
        amountCents: t.amountCents,
        ...(pricing.get(t.campaignId) ?? fallback),
        roles: tierRoles(guild, t).flatMap(({ roleId }) => guild.roles.get(roleId)?.name ?? []),
      }))
      .filter((t) => t.roles.length > 0)
      .sort((a, b) => a.amountCents - b.amountCents);
  }

  return {
    async place(guildId: string): Promise<JoinPlace> {
      const [guild, guildName, served, link] = await Promise.all([
        deps.contexts.load(guildId),
        deps.guilds.name(guildId),
        deps.served(guildId),
        deps.links.linkOf(guildId),
      ]);
      const [rows, campaigns] = await Promise.all([
        deps.campaigns.tiersOf(guild.campaignIds),
        Promise.all(guild.campaignIds.map((id) => deps.campaigns.get(id))),
      ]);
      const pricing = new Map<string, Pricing>();
      for (const c of campaigns) {
        if (!c) continue;
        pricing.set(c.id, pricingOf(c, deps.currency));
      }
      const published = new Set(rows.filter((r) => r.published).map((r) => `${r.campaignId}/${r.id}`));
      return {
        guildId,
        guildName,
        campaignName: served.names.join(' & ') || 'this creator',
        pledgeUrl: served.pledgeUrl,
        tiers: accessTiers(guild, published, pricing),
        openToEveryone: guild.settings.joinNonPatrons === true,
        link,
      };
    },

    async readiness(guildId: string): Promise<JoinReadiness> {
      if ((await deps.guilds.campaignsOf(guildId)).length === 0) return 'not_connected';
      let snapshot;
      try {
        snapshot = await deps.discordSnapshots.get(guildId);
      } catch (error) {
        if (error instanceof DiscordProblemError) return 'bot_not_in_server';
        throw error;
      }
      const bits = botGuildPermissions(guildId, snapshot.roles, snapshot.botRoleIds);
      if ((bits & CREATE_INSTANT_INVITE) === 0n) return 'bot_lacks_invite';
      if ((bits & MANAGE_ROLES) === 0n) return 'bot_lacks_manage_roles';
      return 'ready';
    },

    async preview(guildId: string, patreonUserId: string): Promise<JoinPreview> {
      const [guild, rows] = await Promise.all([deps.contexts.load(guildId), deps.snapshots.forExternalUser(PATREON, patreonUserId)]);
      const planned = planUser({
        guild,
        userId: '0',
        members: rows.map(patreonStateOf),
        currentRoleIds: new Set(),
        ledger: [],
        now: deps.clock.now(),
        joining: true,
      });
      const tierRole = [...planned.desired.grants.values()].some((g) => g.kind === 'tier');
      return { planned, admitted: tierRole || guild.settings.joinNonPatrons === true };
    },
  };
}

/** The facts a join page shows and decides from: the server, its tiers, whether it can add people, who gets in. */
export interface JoinPlaces {
  place(guildId: string): Promise<JoinPlace>;
  /** Whether the page can add people now: the bot needs Create Instant Invite and Manage Roles (docs/discord-api-notes.md §2). */
  readiness(guildId: string): Promise<JoinReadiness>;
  /**
   * What joining would give a service user here, planned as `/link` plans (the same planner, from
   * the memberships just stored), as someone holding no role yet.
   */
  preview(guildId: string, patreonUserId: string): Promise<JoinPreview>;
}
