import type { DiscordUserOAuth } from '../../edges/outbound/discord/user-oauth';
import type { MemberAddProblem, MemberAdder } from '../../edges/outbound/discord/member-adder';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { Locale } from '../../core/i18n';
import type { Logger } from '../../shared/logger';
import type { PatronMessages } from '../membership/patron-messages';
import type { BrowserBinding, OneTimeLinks, ReadNonce } from '../linking/one-time-links';
import type { BoundState, DiscordAccount, LinkService } from '../linking/link-service';
import type { JoinOutcome, MemberOutcome, Reconciler } from '../sync/reconciler';
import type { JoinLinks } from './join-links';
import type { JoinPlace, JoinPlaces, JoinPreview, JoinReadiness } from './join-place';

/** What the join page asks of Discord: who the person is, and leave to add them to a server. */
export const JOIN_SCOPES = ['identify', 'guilds.join'] as const;

export type JoinStart =
  | { kind: 'unknown' }
  | { kind: 'not_ready'; place: JoinPlace; readiness: Exclude<JoinReadiness, 'ready'> }
  /** To the service's consent page, with the flow's cookie set. */
  | { kind: 'redirect'; url: string; browser: BrowserBinding };

/** After the service step: on to Discord's consent page, or a refusal. */
export type ServiceStep =
  | { kind: 'redirect'; url: string }
  | { kind: 'not_patron'; place: JoinPlace; preview: JoinPreview }
  | { kind: 'service_error'; place: JoinPlace }
  /** The flow already went past this step (a second callback of the same flow). */
  | { kind: 'bad_state'; place: JoinPlace };

/** In the server, with the roles: added now, or found there and reconciled as `/link` does. */
export interface Joined<K extends 'added' | 'already_member' | 'pending' = 'added' | 'already_member' | 'pending'> {
  kind: K;
  place: JoinPlace;
  discordAccount: DiscordAccount;
  outcome: MemberOutcome;
}

export type JoinCompletion =
  | Joined<'added'>
  | Joined<'already_member'>
  /** In the server behind its Membership Screening, with no role yet: they come when the rules are accepted. */
  | Joined<'pending'>
  | { kind: 'refused'; place: JoinPlace; discordAccount: DiscordAccount; problem: MemberAddProblem }
  | { kind: 'not_patron'; place: JoinPlace; preview: JoinPreview }
  /** The person pressed Cancel on Discord's page. */
  | { kind: 'denied'; place: JoinPlace }
  /** A valid Discord state in a browser that did not start the flow: spent, nothing done. */
  | { kind: 'other_browser'; place: JoinPlace }
  /** Forged, replayed or stale; `place` when the state was ours. */
  | { kind: 'bad_state'; place: JoinPlace | null }
  | { kind: 'discord_error'; place: JoinPlace };

export interface JoinFlowDeps {
  places: JoinPlaces;
  links: JoinLinks;
  oneTimeLinks: Pick<OneTimeLinks, 'discordState' | 'consumeDiscordState'>;
  link: Pick<LinkService, 'beginJoin' | 'readPatron' | 'linkAccounts'>;
  oauth: Pick<DiscordUserOAuth, 'authorizeUrl' | 'exchangeCode' | 'currentUser' | 'revoke'>;
  members: MemberAdder;
  reconciler: Pick<Reconciler, 'joinMember'>;
  metrics: Pick<Metrics, 'joins'>;
  logger: Logger;
  /** `$PUBLIC_URL/join/callback`: Discord's redirect URI for the join page. */
  redirectUri: () => string;
  /** The direct message to a patron whose membership was just linked (when the server sends it); started, never awaited. */
  patronMessages?: Pick<PatronMessages, 'afterLink'>;
}

export function createJoinFlow(deps: JoinFlowDeps): JoinFlow {
  const { places, logger } = deps;
  const count = (outcome: string) => deps.metrics.joins.inc({ outcome });

  return {
    async start(slug: string): Promise<JoinStart> {
      const guildId = await deps.links.resolve(slug);
      if (!guildId) return { kind: 'unknown' };
      const readiness = await places.readiness(guildId);
      if (readiness !== 'ready') return { kind: 'not_ready', place: await places.place(guildId), readiness };
      return { kind: 'redirect', ...(await deps.link.beginJoin(guildId)) };
    },

    async afterService(code: string, consumed: BoundState): Promise<ServiceStep> {
      const { guildId } = consumed.row;
      const place = await places.place(guildId);
      const read = await deps.link.readPatron(code, consumed);
      if (read.kind === 'service_error') {
        count('service_error');
        return { kind: 'service_error', place };
      }
      const preview = await places.preview(guildId, read.patreonUserId);
      if (!preview.admitted) {
        count('not_patron');
        logger.info({ guildId, patreonUserId: read.patreonUserId }, 'join refused: no tier gives a role here');
        return { kind: 'not_patron', place, preview };
      }
      const state = await deps.oneTimeLinks.discordState(consumed.flow, read.patreonUserId);
      if (!state) return { kind: 'bad_state', place };
      const url = deps.oauth.authorizeUrl({ scopes: JOIN_SCOPES, state, redirectUri: deps.redirectUri() });
      return { kind: 'redirect', url };
    },

    async complete(
      query: { code?: string; state?: string; error?: string },
      readNonce: ReadNonce,
      locale: Locale = 'en',
    ): Promise<JoinCompletion> {
      const consumed = await deps.oneTimeLinks.consumeDiscordState(query.state, readNonce);
      if (consumed.kind === 'invalid') {
        count('bad_state');
        logger.warn({ hasState: Boolean(query.state) }, 'join callback refused: missing, forged, replayed or stale state');
        return { kind: 'bad_state', place: consumed.guildId ? await places.place(consumed.guildId) : null };
      }
      const place = await places.place(consumed.guildId);
      if (consumed.kind === 'unbound') {
        count('other_browser');
        logger.warn({ guildId: consumed.guildId }, 'join callback refused: the state belongs to another browser');
        return { kind: 'other_browser', place };
      }
      if (query.error) {
        count('denied');
        if (query.error !== 'access_denied') logger.warn({ error: query.error.slice(0, 100) }, 'discord answered the join with an error');
        return query.error === 'access_denied' ? { kind: 'denied', place } : { kind: 'discord_error', place };
      }
      if (!query.code) return { kind: 'bad_state', place };

      const tokens = await deps.oauth.exchangeCode(query.code, deps.redirectUri());
      if (!tokens.ok) {
        count('discord_error');
        logger.warn({ kind: tokens.error.kind, detail: tokens.error.detail }, 'join: the Discord code exchange failed');
        return tokens.error.kind === 'invalid_grant' ? { kind: 'bad_state', place } : { kind: 'discord_error', place };
      }
      const { accessToken, scopes } = tokens.value;
      try {
        return await join(place, consumed.patreonUserId, accessToken, scopes, locale);
      } finally {
        // Not kept: revoking ends the refresh token Discord issued with it too.
        const revoked = await deps.oauth.revoke(accessToken);
        if (!revoked.ok) logger.warn({ kind: revoked.error.kind }, 'join: revoking the Discord token failed; it expires on its own');
      }
    },
  };

  async function join(
    place: JoinPlace,
    patreonUserId: string,
    accessToken: string,
    scopes: readonly string[],
    locale: Locale,
  ): Promise<JoinCompletion> {
    const { guildId } = place;
    const user = await deps.oauth.currentUser(accessToken);
    if (!user.ok) {
      count('discord_error');
      logger.warn({ kind: user.error.kind, detail: user.error.detail }, 'join: Discord did not say who signed in');
      return { kind: 'discord_error', place };
    }
    const userId = user.value.id;
    const discordAccount: DiscordAccount = { userId, username: user.value.username, globalName: user.value.globalName };
    // Checked again: the settings or the membership may have changed on the way through Discord.
    const preview = await places.preview(guildId, patreonUserId);
    if (!preview.admitted) {
      count('not_patron');
      return { kind: 'not_patron', place, preview };
    }
    if (!scopes.includes('guilds.join')) {
      // The consent page was altered to leave out joining: Discord would refuse the token.
      count('token_refused');
      const problem: MemberAddProblem = {
        code: 'token_refused',
        message: 'the authorization leaves out guilds.join',
        discordCode: null,
        requestSent: false,
      };
      return { kind: 'refused', place, discordAccount, problem };
    }
    await deps.link.linkAccounts(userId, patreonUserId);
    const joined: JoinOutcome = await deps.reconciler.joinMember(guildId, userId, (roleIds) =>
      deps.members.addMember(guildId, userId, accessToken, roleIds),
    );
    count(joined.kind === 'refused' ? joined.problem.code : joined.kind);
    logger.info({ guildId, userId, patreonUserId, outcome: joined.kind }, 'join page: done');
    if (joined.kind === 'refused') return { kind: 'refused', place, discordAccount, problem: joined.problem };
    // Linked here as by /link: a patron entitled in the server is told, when the server does that.
    if (joined.outcome.entitlements.some((e) => (e.kind === 'active' || e.kind === 'grace') && e.tierIds.length > 0))
      deps.patronMessages?.afterLink(guildId, userId, patreonUserId, locale);
    return { kind: joined.kind, place, discordAccount, outcome: joined.outcome };
  }
}

/**
 * One visit from a join page to the server (docs/decisions.md §21): the service's consent page first
 * (`identity`, PKCE, the flow's cookie: the `/link` machinery, a `join` flow), which says whether
 * the person gets in; then Discord's (`identify guilds.join`, a second single-use state bound to the
 * same cookie); then the accounts are linked as `/link` links them and the person is added to the
 * server with their roles in one Add Guild Member request, or reconciled as `/link` does when they
 * are in it already. Discord's token serves that request and is revoked; it is never stored.
 */
export interface JoinFlow {
  /** `GET /join/<slug>/start`: the flow's cookie and the service's consent page. */
  start(slug: string): Promise<JoinStart>;
  /** The service's callback of a join flow, consumed in the browser that started it. */
  afterService(code: string, consumed: BoundState): Promise<ServiceStep>;
  /**
   * `GET /join/callback`: Discord's answer; the person joins (or is told why not). `locale`: the
   * language of the join page, for the message that may follow.
   */
  complete(query: { code?: string; state?: string; error?: string }, readNonce: ReadNonce, locale?: Locale): Promise<JoinCompletion>;
}
