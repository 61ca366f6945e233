import { snapshotFromMember, toTierInput, unreadableInput } from '../../edges/outbound/patreon/member-records';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import { type Member, type Tier, PatreonApiError } from '../../edges/outbound/patreon';
import type { MemberIntake } from '../membership/member-intake';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { MemberOutcome, Reconciler } from '../sync/reconciler';
import type { PatronMessages } from '../membership/patron-messages';
import type { Locale } from '../../core/i18n';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { DiscordUser } from '../../edges/outbound/discord/user-oauth';
import type { BrowserBinding, ConsumedState, OneTimeLinks } from './one-time-links';

/** A state consumed in the browser that started the flow. */
export type BoundState = Extract<ConsumedState, { kind: 'consumed' }>;

/** The Discord account a membership was linked to, as Discord shows it (for the result page). */
export interface DiscordAccount {
  userId: string;
  /** null when Discord could not be asked. */
  username: string | null;
  globalName: string | null;
}

/** Where following a `/link` or `/connect` link goes once the person signed in with Discord. */
export type FlowFollow =
  | { kind: 'redirect'; url: string; browser: BrowserBinding }
  /** The link was made for another Discord account: spent, and nothing moved. */
  | { kind: 'someone_else'; signedInAs: DiscordAccount }
  | { kind: 'expired' };

export const accountOf = (user: DiscordUser): DiscordAccount => ({ userId: user.id, username: user.username, globalName: user.globalName });

/** What `/link` needs from the service: only who the patron is. */
export const PATRON_SCOPES = ['identity'] as const;

export type LinkCompletion =
  | {
      kind: 'linked';
      patronName: string;
      patreonUserId: string;
      guildId: string;
      /** Who got the roles: named on the page, so a patron who was sent someone else's link sees it. */
      discordAccount: DiscordAccount;
      /** The outcome in the guild where `/link` was run. */
      outcome: MemberOutcome;
      /** Campaigns the guild serves (names for the page). */
      campaignNames: string[];
      pledgeUrl: string | null;
      movedFromAnotherAccount: boolean;
    }
  | { kind: 'service_error'; message: string };

/** `joinUrl`: the server's join page, for patrons not in the server yet (when the join page is on). */
/**
 * What `/link` hands out. `linkedTo`: the Patreon account the member is linked to already (its
 * name as last read, null when never read), so the reply says what linking again does.
 */
export type LinkStart =
  | { kind: 'link'; url: string; expiresAt: Date; joinUrl: string | null; linkedTo: { name: string | null } | null }
  | { kind: 'not_connected' };

/** Who the patron is, read with their consent: their memberships of the guild's campaigns are stored. */
export type PatronRead = { kind: 'read'; patreonUserId: string; patronName: string } | { kind: 'service_error'; message: string };

export interface LinkServiceDeps {
  links: LinkRepository;
  /** The members as last read: the name of the Patreon account a member is linked to already. */
  snapshots?: Pick<SnapshotRepository, 'forExternalUser'>;
  /** Where the patron's memberships come in (src/app/membership/member-intake.ts). */
  intake: MemberIntake;
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  oneTimeLinks: OneTimeLinks;
  accounts: CreatorAccounts;
  reconciler: Reconciler;
  discordUsers: Pick<GuildDirectory, 'getUser'>;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** `$PUBLIC_URL/oauth/callback`. */
  redirectUri: () => string;
  /** The address of a server's join page (src/app/joining/join-links.ts), when the join page is on. */
  joinUrl?: (guildId: string) => Promise<string>;
  /** The direct message to a patron whose membership was just linked (when the server sends it); started, never awaited. */
  patronMessages?: Pick<PatronMessages, 'afterLink'>;
}

export function createLinkService(deps: LinkServiceDeps): LinkService {
  const { clock, logger } = deps;

  /**
   * The member as the creator's token reads it (the authority), and the tiers it names stored with
   * their role ids: a tier created since the catalog was last read grants its roles at this link,
   * not after the next refresh (as a webhook's re-read does). Tiers are taken from the creator's
   * read only, never from the patron's own view.
   */
  async function readMembership(campaignId: string, fromIdentity: Member): Promise<{ member: Member; tiers: Tier[] }> {
    const client = await deps.accounts.clientForCampaign(campaignId);
    if (!client) return { member: fromIdentity, tiers: [] };
    let details;
    try {
      details = await client.getMember(fromIdentity.id);
    } catch (error) {
      // The creator token is the authority, but the patron's own view of their membership is
      // current too: an outage of the creator side must not block the link.
      logger.warn({ err: error, campaignId }, 'creator read of a linking member failed; using the identity view');
      return { member: fromIdentity, tiers: [] };
    }
    if (!details) return { member: { ...fromIdentity, patronStatus: null, entitledTierIds: [] }, tiers: [] };
    return { member: details.member, tiers: details.tiers };
  }

  async function discordAccount(userId: string): Promise<DiscordAccount> {
    try {
      const user = await deps.discordUsers.getUser(userId);
      return { userId, username: user?.username ?? null, globalName: user?.globalName ?? null };
    } catch (error) {
      logger.warn({ err: error }, 'link: the Discord account could not be read for the result page');
      return { userId, username: null, globalName: null };
    }
  }

  /** The service's consent page with scope `identity`, this flow's state and its PKCE challenge. */
  function authorizeUrl(flow: { state: string; codeChallenge: string }): string {
    return deps.accounts.oauth.authorizeUrl({
      redirectUri: deps.redirectUri(),
      scopes: [...PATRON_SCOPES],
      state: flow.state,
      codeChallenge: flow.codeChallenge,
    });
  }

  /**
   * The service half of a link (`/link`, and the join page's service step): the code exchanged with
   * the flow's PKCE verifier, the patron's identity read with their token (used for this request
   * only), and their memberships of the guild's campaigns read and stored.
   */
  async function readPatron(code: string, consumed: BoundState): Promise<PatronRead> {
    const { guildId } = consumed.row;
    let identity;
    try {
      const tokens = await deps.accounts.oauth.exchangeCode({
        code,
        redirectUri: deps.redirectUri(),
        codeVerifier: consumed.codeVerifier,
      });
      identity = await deps.accounts.patronClient.getIdentity(tokens.accessToken, { includeMemberships: true });
    } catch (error) {
      deps.metrics.links.inc({ outcome: 'service_error' });
      logger.warn({ err: error, guildId }, 'link: code exchange or identity read failed');
      return { kind: 'service_error', message: error instanceof PatreonApiError ? error.kind : 'unexpected' };
    }
    const patreonUserId = identity.user.id;
    const served = await deps.guilds.campaignsOf(guildId);
    for (const member of identity.members) {
      if (!served.includes(member.campaignId)) continue;
      const current = await readMembership(member.campaignId, member);
      // Linked below, by the patron's own sign-in: no profile link, and the reconcile follows the link.
      await deps.intake.record({
        snapshot: snapshotFromMember({ ...current.member, userId: patreonUserId }, 'link'),
        tiers: current.tiers.map(toTierInput),
      });
    }
    // A membership Patreon answered with something unreadable: marked, so its roles stay as they are.
    const odd = identity.unreadable.filter((u) => u.campaignId !== null && served.includes(u.campaignId));
    await deps.intake.markUnreadable(
      odd.map((u) => unreadableInput({ ...u, userId: patreonUserId }, u.campaignId!, 'link')),
      'link',
    );
    return { kind: 'read', patreonUserId, patronName: identity.user.fullName };
  }

  /**
   * Links a Discord account to a service account; the Discord account the membership leaves (if it
   * was linked elsewhere) loses the roles Tierlink granted it.
   */
  async function linkAccounts(discordUserId: string, patreonUserId: string): Promise<{ movedFrom: string | null }> {
    const { movedFrom } = await deps.links.linkOauth(PATREON, discordUserId, patreonUserId, clock.now());
    if (movedFrom) {
      await deps.reconciler.reconcileUser(movedFrom, {
        trigger: 'relink',
        unlinkedReason: 'the membership was linked to another Discord account',
      });
    }
    return { movedFrom };
  }

  /** The campaigns a guild serves (names for the pages) and where to pledge. */
  async function servedCampaigns(guildId: string): Promise<{ names: string[]; pledgeUrl: string | null }> {
    const served = await deps.guilds.campaignsOf(guildId);
    const campaigns = (await Promise.all(served.map((id) => deps.campaigns.get(id)))).filter((c) => c !== null);
    return { names: campaigns.map((c) => c.name), pledgeUrl: campaigns[0]?.url ?? null };
  }

  return {
    async start(discordUserId: string, guildId: string): Promise<LinkStart> {
      if ((await deps.guilds.campaignsOf(guildId)).length === 0) return { kind: 'not_connected' };
      const [created, joinUrl, existing] = await Promise.all([
        deps.oneTimeLinks.create('link', discordUserId, guildId),
        deps.joinUrl ? deps.joinUrl(guildId) : Promise.resolve(null),
        deps.links.byDiscordUser(discordUserId, PATREON),
      ]);
      let linkedTo: { name: string | null } | null = null;
      if (existing) {
        const read = deps.snapshots ? await deps.snapshots.forExternalUser(PATREON, existing.externalId) : [];
        linkedTo = { name: read.find((r) => r.fullName)?.fullName ?? null };
      }
      return { kind: 'link', ...created, joinUrl, linkedTo };
    },

    async follow(token: string, signedIn: DiscordUser): Promise<FlowFollow> {
      const followed = await deps.oneTimeLinks.follow('link', token);
      if (!followed) return { kind: 'expired' };
      if (followed.row.discordUserId !== signedIn.id) {
        deps.metrics.links.inc({ outcome: 'someone_else' });
        logger.warn({ guildId: followed.row.guildId, signedIn: signedIn.id }, 'link refused: made for another Discord account');
        return { kind: 'someone_else', signedInAs: accountOf(signedIn) };
      }
      return { kind: 'redirect', url: authorizeUrl(followed), browser: followed.browser };
    },

    async beginJoin(guildId: string): Promise<{ url: string; browser: BrowserBinding }> {
      const begun = await deps.oneTimeLinks.begin(guildId);
      return { url: authorizeUrl(begun), browser: begun.browser };
    },

    readPatron,
    linkAccounts,
    servedCampaigns,
    discordAccount,

    async complete(code: string, consumed: BoundState, locale: Locale = 'en'): Promise<LinkCompletion> {
      const { discordUserId, guildId } = consumed.row;
      if (!discordUserId) throw new Error('a /link flow carries the Discord user who ran /link');
      const read = await readPatron(code, consumed);
      if (read.kind === 'service_error') return read;
      const { patreonUserId } = read;
      const { movedFrom } = await linkAccounts(discordUserId, patreonUserId);
      const outcomes = await deps.reconciler.reconcileUser(discordUserId, { trigger: 'link', alsoGuildIds: [guildId] });
      const outcome = outcomes.find((o) => o.guildId === guildId)!;
      deps.metrics.links.inc({ outcome: 'linked' });
      logger.info({ guildId, discordUserId, patreonUserId, moved: movedFrom !== null }, 'patron linked');
      // A patron entitled here, in the server: told by direct message after the roles, when the server does that.
      if (outcome.inGuild && outcome.entitlements.some((e) => (e.kind === 'active' || e.kind === 'grace') && e.tierIds.length > 0))
        deps.patronMessages?.afterLink(guildId, discordUserId, patreonUserId, locale);

      const campaigns = await servedCampaigns(guildId);
      return {
        kind: 'linked',
        patronName: read.patronName,
        patreonUserId,
        guildId,
        discordAccount: await discordAccount(discordUserId),
        outcome,
        campaignNames: campaigns.names,
        pledgeUrl: campaigns.pledgeUrl,
        movedFromAnotherAccount: movedFrom !== null,
      };
    },

    async unlink(discordUserId: string): Promise<{ wasLinked: boolean; outcomes: MemberOutcome[] }> {
      const removed = await deps.links.unlink(discordUserId, clock.now());
      const outcomes = await deps.reconciler.reconcileUser(discordUserId, { trigger: 'unlink', unlinkedReason: 'unlinked with /unlink' });
      return { wasLinked: removed.length > 0, outcomes };
    },
  };
}

/**
 * The patron's side of linking: `/link` hands out a one-time link, following it sends the patron
 * to the service's consent page with scope `identity`, and the callback links the accounts, reads
 * the member's current state with the creator's token, and grants the roles before the result
 * page is rendered. The patron's tokens serve this one request and are never stored.
 */
export interface LinkService {
  /**
   * `/link`: a one-time link for this user in this guild, or `not_connected` when the guild serves
   * no campaign yet (a link then could only end in "not a patron", which would be wrong).
   */
  start(discordUserId: string, guildId: string): Promise<LinkStart>;
  /**
   * A `/link` link, once its page signed the person in with Discord (src/app/linking/discord-step.ts):
   * the service's authorize URL and the browser binding to set as a cookie; `someone_else` when the
   * Discord account signed in is not the one that ran `/link` (the link is spent, nothing moves);
   * `expired` when the link is unknown, used or expired.
   */
  follow(token: string, signedIn: DiscordUser): Promise<FlowFollow>;
  /** A join page's service step (src/app/joining): a flow made and followed at once, toward the same consent page. */
  beginJoin(guildId: string): Promise<{ url: string; browser: BrowserBinding }>;
  readPatron(code: string, consumed: BoundState): Promise<PatronRead>;
  linkAccounts(discordUserId: string, patreonUserId: string): Promise<{ movedFrom: string | null }>;
  servedCampaigns(guildId: string): Promise<{ names: string[]; pledgeUrl: string | null }>;
  discordAccount(userId: string): Promise<DiscordAccount>;
  /**
   * The callback of a `/link` authorization, after its state was consumed in the browser that
   * started it. `locale`: the language of the patron's pages, for the message that may follow.
   */
  complete(code: string, consumed: BoundState, locale?: Locale): Promise<LinkCompletion>;
  /** `/unlink`: forgets the link and removes the roles the ledger says we granted. */
  unlink(discordUserId: string): Promise<{ wasLinked: boolean; outcomes: MemberOutcome[] }>;
}
