import { campaignName, storeCampaign } from './campaign-catalog';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import { createHash } from 'node:crypto';
import type { AppStateRepository } from '../../edges/outbound/store/repositories/app-state-repository';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { CampaignConnector, GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { CampaignDetails, PatreonClient } from '../../edges/outbound/patreon';
import { PatreonApiError } from '../../edges/outbound/patreon';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { DiscordUser } from '../../edges/outbound/discord/user-oauth';
import { type BoundState, type FlowFollow, accountOf } from '../linking/link-service';
import type { BoundFlow, OneTimeLinks, ReadNonce } from '../linking/one-time-links';

/** What Tierlink needs from a creator: who they are, their campaigns and members, and webhooks. */
export const CREATOR_SCOPES = ['identity', 'campaigns', 'campaigns.members', 'w:campaigns.webhook'] as const;

/**
 * Asked for too, but not needed for roles: `campaigns.posts` lets Tierlink read the campaign's posts
 * for the new-posts announcements (the service sends post events and answers post reads only within
 * the scopes granted). A creator connected without it is told so when a posts channel is set.
 */
export const OPTIONAL_CREATOR_SCOPES = ['campaigns.posts'] as const;

/**
 * The expiry stored for the environment's tokens: the registration page does not say when they
 * expire, so they are trusted until a 401 says otherwise. The latest date both PostgreSQL and
 * PGlite parse: JavaScript's own maximum (year 275760) serialises as `+275760-…`, which they refuse.
 */
const UNKNOWN_EXPIRY = new Date('9999-12-31T00:00:00Z');

export interface BoundCampaign {
  guildId: string;
  campaignId: string;
  creatorUserId: string;
  name: string;
}

export type ConnectCompletion =
  | { kind: 'bound'; bound: BoundCampaign; details: CampaignDetails }
  /**
   * The creator has several campaigns: the page offers each as a form posting its single-use
   * `ticket` with the flow's `csrf` token; both need the browser's flow cookie (`flowId`).
   */
  | {
      kind: 'choose';
      creatorName: string;
      guildId: string;
      flowId: string;
      csrf: string;
      choices: Array<{ details: CampaignDetails; ticket: string }>;
    }
  | { kind: 'no_campaign'; creatorName: string }
  | { kind: 'service_error'; message: string };

/** Why a chooser's ticket did nothing: used already, past its time, or not this browser's. */
export type ChoiceRefusal = { kind: 'choice_refused'; reason: 'used' | 'expired' | 'invalid' };

/**
 * The person is not (or no longer) the server's owner or an administrator: connecting a campaign
 * decides which roles every patron gets, so nothing is stored or bound.
 */
export type ConnectNotAllowed = { kind: 'not_allowed' };

export interface ConnectServiceDeps {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  appState: AppStateRepository;
  oneTimeLinks: OneTimeLinks;
  accounts: CreatorAccounts;
  clock: Clock;
  logger: Logger;
  redirectUri: () => string;
  publicUrl: () => string;
  /** PATREON_CAMPAIGN_ID: which campaign to serve when the creator has several. */
  preferredCampaignId: string | undefined;
  /** Called after a campaign is bound to a guild: register the webhook, and so on. */
  onBound(bound: BoundCampaign): Promise<void>;
  /**
   * Whether this Discord user may connect a campaign to this guild (the server's owner or an
   * Administrator, read from Discord now; src/app/admin/actor-authority.ts), as the connector to
   * store with the binding (their highest role, null for the owner); null when they may not.
   */
  connectorOf(guildId: string, userId: string): Promise<CampaignConnector | null>;
}

export function createConnectService(deps: ConnectServiceDeps): ConnectService {
  const { clock, logger } = deps;

  /** `connector`: who connected it and their highest role; its tiers' roles are given only below that role (src/core/connector-limit.ts). */
  async function bind(
    guildId: string,
    creatorUserId: string,
    details: CampaignDetails,
    connector: CampaignConnector,
  ): Promise<BoundCampaign> {
    await storeCampaign({ campaigns: deps.campaigns, clock }, creatorUserId, details);
    await deps.guilds.bind(guildId, details.campaign.id, connector);
    const bound = { guildId, campaignId: details.campaign.id, creatorUserId, name: campaignName(details) };
    logger.info({ guildId, campaignId: bound.campaignId }, 'campaign bound to guild');
    await deps.onBound(bound);
    return bound;
  }

  async function pick(
    flow: BoundFlow,
    connector: CampaignConnector,
    guildId: string,
    creatorUserId: string,
    client: PatreonClient,
    creatorName: string,
  ): Promise<ConnectCompletion> {
    const all = await client.getCampaigns();
    const preferred = deps.preferredCampaignId ? all.find((c) => c.campaign.id === deps.preferredCampaignId) : undefined;
    if (deps.preferredCampaignId && !preferred) {
      logger.warn({ campaignId: deps.preferredCampaignId }, 'PATREON_CAMPAIGN_ID is not one of the creator’s campaigns');
    }
    const chosen = preferred ?? (all.length === 1 ? all[0] : undefined);
    if (chosen) return { kind: 'bound', bound: await bind(guildId, creatorUserId, chosen, connector), details: chosen };
    if (all.length === 0) return { kind: 'no_campaign', creatorName };
    return {
      kind: 'choose',
      creatorName,
      guildId,
      flowId: flow.flowId,
      csrf: deps.oneTimeLinks.choiceCsrf(flow),
      choices: all.map((details) => ({ details, ticket: deps.oneTimeLinks.choiceTicket(flow, creatorUserId, details.campaign.id) })),
    };
  }

  return {
    async start(
      discordUserId: string,
      guild: { id: string; name: string | null },
    ): Promise<{ kind: 'link'; url: string; expiresAt: Date } | ConnectNotAllowed> {
      if (!(await deps.connectorOf(guild.id, discordUserId))) return { kind: 'not_allowed' };
      await deps.guilds.ensure(guild.id, guild.name);
      return { kind: 'link', ...(await deps.oneTimeLinks.create('connect', discordUserId, guild.id)) };
    },

    async follow(token: string, signedIn: DiscordUser): Promise<FlowFollow | ConnectNotAllowed> {
      const followed = await deps.oneTimeLinks.follow('connect', token);
      if (!followed) return { kind: 'expired' };
      const { guildId, discordUserId } = followed.row;
      if (discordUserId !== signedIn.id) {
        logger.warn({ guildId, signedIn: signedIn.id }, 'connect refused: the link was made for another Discord account');
        return { kind: 'someone_else', signedInAs: accountOf(signedIn) };
      }
      if (!(await deps.connectorOf(guildId, signedIn.id))) {
        logger.warn({ guildId, userId: signedIn.id }, 'connect refused: neither the owner nor an administrator any more');
        return { kind: 'not_allowed' };
      }
      const url = deps.accounts.oauth.authorizeUrl({
        redirectUri: deps.redirectUri(),
        scopes: [...CREATOR_SCOPES, ...OPTIONAL_CREATOR_SCOPES],
        state: followed.state,
        codeChallenge: followed.codeChallenge,
      });
      return { kind: 'redirect', url, browser: followed.browser };
    },

    async complete(code: string, consumed: BoundState): Promise<ConnectCompletion | ConnectNotAllowed> {
      const link = consumed.row;
      const connector = link.discordUserId ? await deps.connectorOf(link.guildId, link.discordUserId) : null;
      if (!connector) return { kind: 'not_allowed' };
      try {
        const tokens = await deps.accounts.oauth.exchangeCode({
          code,
          redirectUri: deps.redirectUri(),
          codeVerifier: consumed.codeVerifier,
        });
        const missing = CREATOR_SCOPES.filter((s) => !tokens.scopes.includes(s));
        if (missing.length > 0) logger.warn({ missing }, 'the creator granted fewer scopes than Tierlink asked for');
        const { creatorUserId, fullName, client } = await deps.accounts.connect(tokens);
        return await pick(consumed.flow, connector, link.guildId, creatorUserId, client, fullName);
      } catch (error) {
        logger.warn({ err: error, guildId: link.guildId }, 'connect failed');
        return { kind: 'service_error', message: error instanceof PatreonApiError ? error.kind : 'unexpected' };
      }
    },

    async choose(
      ticket: string | undefined,
      csrf: string | undefined,
      readNonce: ReadNonce,
    ): Promise<ConnectCompletion | ChoiceRefusal | ConnectNotAllowed> {
      const redeemed = await deps.oneTimeLinks.redeemChoice(ticket, csrf, readNonce);
      if (redeemed.kind !== 'chosen') return { kind: 'choice_refused', reason: redeemed.kind };
      const { guildId, creatorUserId, campaignId } = redeemed;
      const connector = redeemed.discordUserId ? await deps.connectorOf(guildId, redeemed.discordUserId) : null;
      if (!connector) return { kind: 'not_allowed' };
      try {
        const client = deps.accounts.clientForCreator(creatorUserId);
        const details = await client.getCampaign(campaignId);
        return { kind: 'bound', bound: await bind(guildId, creatorUserId, details, connector), details };
      } catch (error) {
        logger.warn({ err: error, guildId }, 'binding the chosen campaign failed');
        return { kind: 'service_error', message: error instanceof PatreonApiError ? error.kind : 'unexpected' };
      }
    },

    async connectFromEnvironment(
      tokens: { accessToken: string; refreshToken: string },
      guildIds: readonly string[],
    ): Promise<BoundCampaign[]> {
      // After the first refresh the environment's refresh token is spent and the database holds the
      // rotated pair: seed from the environment only when its tokens changed since the last seed.
      const seed = createHash('sha256').update(`${tokens.accessToken}\n${tokens.refreshToken}`).digest('hex');
      const last = await deps.appState.get<{ seed: string; creatorUserId: string }>('creator-env-seed');
      let creatorUserId: string;
      let client: PatreonClient;
      if (last?.seed === seed) {
        creatorUserId = last.creatorUserId;
        client = deps.accounts.clientForCreator(creatorUserId);
      } else {
        ({ creatorUserId, client } = await deps.accounts.connect({
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          expiresAt: UNKNOWN_EXPIRY,
          scopes: [],
        }));
        await deps.appState.set('creator-env-seed', { seed, creatorUserId });
      }
      const all = await client.getCampaigns();
      const chosen = (deps.preferredCampaignId ? all.find((c) => c.campaign.id === deps.preferredCampaignId) : undefined) ?? all[0];
      if (!chosen) {
        logger.warn('the creator token from the environment has no campaign');
        return [];
      }
      const bound: BoundCampaign[] = [];
      if (guildIds.length === 0) await storeCampaign({ campaigns: deps.campaigns, clock }, creatorUserId, chosen);
      // The operator named these servers: no connector's limit.
      for (const guildId of guildIds) bound.push(await bind(guildId, creatorUserId, chosen, { userId: null, roleId: null }));
      return bound;
    },
  };
}

/**
 * The creator's side: `/connect` hands out a one-time link to authorize with the creator scopes;
 * the callback stores the creator's tokens (sealed), picks the campaign (PATREON_CAMPAIGN_ID, the
 * only one, or the creator's choice on the result page), reads its tiers and binds it to the guild.
 * The environment's creator tokens take the same path at start-up, without a click.
 *
 * A campaign's tiers name the roles its patrons get, so only the server's owner or an Administrator
 * connects one: checked when `/connect` runs, when its link is followed (by the Discord account that
 * ran it, signed in on the link's page), and again before anything is stored or bound.
 */
export interface ConnectService {
  /** `/connect`: the guild is recorded (with its name, for the result page) before its one-time link is handed out. */
  start(
    discordUserId: string,
    guild: { id: string; name: string | null },
  ): Promise<{ kind: 'link'; url: string; expiresAt: Date } | ConnectNotAllowed>;
  /**
   * A `/connect` link, once its page signed the person in with Discord: the service's authorize
   * URL and the browser binding to set as a cookie, when the person is the one who ran `/connect`
   * and may still connect a campaign here. The link is spent either way.
   */
  follow(token: string, signedIn: DiscordUser): Promise<FlowFollow | ConnectNotAllowed>;
  /** The callback of a `/connect` authorization, after its state was consumed in the browser that started it. */
  complete(code: string, consumed: BoundState): Promise<ConnectCompletion | ConnectNotAllowed>;
  /**
   * `POST /connect/choose`: binds the campaign the creator chose on the chooser, once, from the
   * browser of the flow (its cookie), with the page's form token.
   */
  choose(
    ticket: string | undefined,
    csrf: string | undefined,
    readNonce: ReadNonce,
  ): Promise<ConnectCompletion | ChoiceRefusal | ConnectNotAllowed>;
  /**
   * PATREON_CREATOR_ACCESS_TOKEN / _REFRESH_TOKEN at start-up: connect without a click and bind
   * the campaign to `guildIds` (DISCORD_GUILD_ID, or every guild the bot is in that serves no
   * campaign yet). Returns what was bound.
   */
  connectFromEnvironment(tokens: { accessToken: string; refreshToken: string }, guildIds: readonly string[]): Promise<BoundCampaign[]>;
}
