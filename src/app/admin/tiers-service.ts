import { type Pricing, priceText, pricingOf } from '../../core/i18n/price';
import { refreshCampaign } from './campaign-catalog';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { CampaignRepository, TierRow } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import { tierRoles } from '../../core/planner/desired-roles';
import { guildTier } from '../../core/tier-roles';
import type { GrantSource } from '../../core/planner/types';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { GuildContextLoader } from '../sync/guild-context';
import { findRolesElsewhere } from './roles-elsewhere';
import type { RefusalFacts } from '../../core/refusal-text';

/** Stored tiers older than this are read again from the service before they are shown. */
export const TIERS_STALE_MS = 10 * MINUTE;

export interface TierRoleLine {
  roleId: string;
  roleName: string | null;
  source: GrantSource;
  /**
   * The name of another server this campaign serves that has the role, when this one does not: a
   * tier's `chat_role_ids` name the roles of one server, and the others map their own with `/map`.
   */
  elsewhere: string | null;
  /**
   * Missing from the server (and from every other one it could belong to), a role the bot cannot
   * manage, or one above whoever connected the campaign (src/core/connector-limit.ts), with the fix;
   * `facts` for a reader of another language where the problem has them.
   */
  problem: { message: string; fix: string; facts?: RefusalFacts } | null;
  /**
   * A role with dangerous permissions the owner or an administrator has not allowed: never granted
   * (src/app/admin/role-allowances.ts). `permissions` (English names) and `gained` (it gained them
   * since it was allowed) are for a reader of another language.
   */
  heldBack: { message: string; fix: string; permissions: readonly string[]; gained: boolean } | null;
}

export interface TierLine {
  campaignId: string;
  campaignName: string;
  tierId: string;
  title: string;
  amountCents: number;
  /** How the tier's campaign states its prices (currency, how often patrons pay). */
  pricing: Pricing;
  patronCount: number | null;
  published: boolean;
  roles: TierRoleLine[];
}

/** A tier named by autocomplete: `<campaign id>:<tier id>`. */
export function tierRef(campaignId: string, tierId: string): string {
  return `${campaignId}:${tierId}`;
}

export function parseTierRef(value: string): { campaignId: string; tierId: string } | null {
  const at = value.indexOf(':');
  return at > 0 && at < value.length - 1 ? { campaignId: value.slice(0, at), tierId: value.slice(at + 1) } : null;
}

export function createTiersService(deps: {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  accounts: CreatorAccounts;
  contexts: GuildContextLoader;
  /**
   * Campaigns every server may map without `/connect`, on a source that has no sign-in to prove whose
   * they are (Ko-fi's page, `kofi`, when KOFI_VERIFICATION_TOKEN is set): listed by autocomplete, and
   * served by a server from its first mapping of one of their tiers.
   */
  openCampaignIds?: readonly string[];
  /** PATREON_CURRENCY: the currency of prices whose campaign does not state one. */
  currency?: string;
  clock: Clock;
  logger: Logger;
}): TiersService {
  const refreshing = new Map<string, Promise<void>>();

  /** Reads a campaign's tiers again when stored ones are older than 10 minutes (one read at a time). */
  async function refreshIfStale(campaignId: string): Promise<void> {
    const campaign = await deps.campaigns.get(campaignId);
    // Only Patreon's tiers are read from its service; another source's are the ones its payments named.
    if (!campaign || campaign.source !== 'patreon') return;
    const age = campaign.tiersRefreshedAt ? deps.clock.now().getTime() - campaign.tiersRefreshedAt.getTime() : Infinity;
    if (age < TIERS_STALE_MS) return;
    let running = refreshing.get(campaignId);
    if (!running) {
      running = refreshCampaign(
        { campaigns: deps.campaigns, clock: deps.clock },
        deps.accounts.clientForCreator(campaign.creatorUserId),
        campaign.creatorUserId,
        campaignId,
      )
        .then(() => undefined)
        .catch((error) => deps.logger.warn({ err: error, campaignId }, 'tier refresh failed; showing stored tiers'))
        .finally(() => refreshing.delete(campaignId));
      refreshing.set(campaignId, running);
    }
    await running;
  }

  /** The guild's campaigns, and the open ones it may map (see `openCampaignIds`). */
  async function campaignsFor(guildId: string): Promise<string[]> {
    return [...new Set([...(await deps.guilds.campaignsOf(guildId)), ...(deps.openCampaignIds ?? [])])];
  }

  async function storedTiers(guildId: string): Promise<Array<TierRow & { campaignName: string; pricing: Pricing }>> {
    const campaignIds = await campaignsFor(guildId);
    const campaigns = new Map(
      (await Promise.all(campaignIds.map((id) => deps.campaigns.get(id)))).flatMap((c) => (c ? [[c.id, c] as const] : [])),
    );
    const rows = await deps.campaigns.tiersOf(campaignIds);
    return rows
      .filter((t) => t.removedAt === null)
      .map((t) => {
        const campaign = campaigns.get(t.campaignId) ?? null;
        return { ...t, campaignName: campaign?.name ?? t.campaignId, pricing: pricingOf(campaign, deps.currency) };
      });
  }

  return {
    refreshIfStale,

    async list(guildId: string): Promise<TierLine[]> {
      await Promise.all((await deps.guilds.campaignsOf(guildId)).map(refreshIfStale));
      const guild = await deps.contexts.load(guildId);
      const rows = await storedTiers(guildId);
      const lines = rows.map((row) => {
        // An open campaign this server does not serve yet (Ko-fi's page before its first mapping) is not in its context.
        const tier = guild.tiers.find((t) => t.campaignId === row.campaignId && t.tierId === row.id) ?? guildTier(row, guildId);
        return { row, tier, roles: tierRoles(guild, tier) };
      });
      const missing = lines.flatMap((l) =>
        l.roles.filter((r) => r.source === 'chat_role_ids' && !guild.roles.has(r.roleId)).map((r) => r.roleId),
      );
      const elsewhere = await findRolesElsewhere(
        { guilds: deps.guilds, roleIdsOf: async (other) => (await deps.contexts.load(other)).roles.keys() },
        guildId,
        guild.campaignIds,
        missing,
      );
      return lines.map(({ row, tier, roles }) => ({
        campaignId: row.campaignId,
        campaignName: row.campaignName,
        tierId: row.id,
        title: row.title,
        amountCents: row.amountCents,
        pricing: row.pricing,
        patronCount: row.patronCount,
        published: row.published,
        roles: roles.map(({ roleId, source }) => {
          const role = guild.roles.get(roleId);
          const otherServer = role ? null : (elsewhere.get(roleId) ?? null);
          return {
            roleId,
            roleName: role?.name ?? null,
            source,
            elsewhere: otherServer,
            heldBack: role?.heldBack
              ? {
                  message: role.heldBack.message,
                  fix: role.heldBack.fix,
                  permissions: role.heldBack.permissions,
                  gained: role.heldBack.gained,
                }
              : null,
            problem: role
              ? (role.problem ?? (source === 'chat_role_ids' ? tier.held?.get(roleId) : undefined) ?? null)
              : otherServer
                ? null
                : source === 'map'
                  ? {
                      message: `role ${roleId} does not exist in this server`,
                      fix: `It was deleted: map the tier to another role with /map tier:${row.title} (Tierlink then forgets the deleted one)`,
                      facts: { code: 'unknown_role', roleName: roleId },
                    }
                  : {
                      message: `role ${roleId} does not exist in this server`,
                      fix: `Set the tier’s Discord role on Patreon to a role of this server, or /map tier:${row.title} an existing role`,
                      facts: { code: 'patreon_role_missing', roleName: roleId, tier: row.title },
                    },
          };
        }),
      }));
    },

    async autocomplete(guildId: string, typed: string): Promise<Array<{ name: string; value: string }>> {
      const campaignIds = await campaignsFor(guildId);
      for (const id of campaignIds) {
        // In the background: a failure (the database, the service) must not end the process.
        refreshIfStale(id).catch((error: unknown) => deps.logger.warn({ err: error, campaignId: id }, 'tier refresh failed'));
      }
      const rows = await storedTiers(guildId);
      const needle = typed.trim().toLowerCase();
      const several = campaignIds.length > 1;
      return rows
        .filter((t) => needle === '' || t.title.toLowerCase().includes(needle))
        .sort((a, b) => a.amountCents - b.amountCents)
        .slice(0, 25)
        .map((t) => ({
          name: `${t.title} — ${priceText({ ...t.pricing, amountCents: t.amountCents })}${several ? ` (${t.campaignName})` : ''}`.slice(
            0,
            100,
          ),
          value: tierRef(t.campaignId, t.id),
        }));
    },

    async resolve(guildId: string, value: string): Promise<(TierRow & { campaignName: string }) | null> {
      const rows = await storedTiers(guildId);
      const ref = parseTierRef(value);
      return (
        (ref && rows.find((t) => t.campaignId === ref.campaignId && t.id === ref.tierId)) ??
        rows.find((t) => t.title.toLowerCase() === value.trim().toLowerCase()) ??
        null
      );
    },
  };
}

/** The guild's tiers with the roles each grants, and autocomplete over them. */
export interface TiersService {
  refreshIfStale(campaignId: string): Promise<void>;
  list(guildId: string): Promise<TierLine[]>;
  /**
   * Up to 25 tiers matching what the creator typed. Answers from stored tiers at once (Discord
   * gives autocomplete 3 seconds) and refreshes stale ones in the background.
   */
  autocomplete(guildId: string, typed: string): Promise<Array<{ name: string; value: string }>>;
  /** Finds a tier of the guild by autocomplete value or by (case-insensitive) title. */
  resolve(guildId: string, value: string): Promise<(TierRow & { campaignName: string }) | null>;
}
