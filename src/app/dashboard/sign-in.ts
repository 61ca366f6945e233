import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DiscordUserOAuth } from '../../edges/outbound/discord/user-oauth';
import type {
  DashboardSessionRepository,
  DashboardSessionRow,
  SessionFlash,
} from '../../edges/outbound/store/repositories/dashboard-session-repository';
import type { SecretBox } from '../../edges/outbound/store/secret-box';
import type { Clock } from '../../shared/clock';
import { HOUR, MINUTE } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

/** `identify` says who signs in; `guilds` lists their servers for the menu (never as an authority). */
export const DASHBOARD_SCOPES = ['identify', 'guilds'] as const;
/** A sign-in lasts 12 hours; signing out ends it at once. */
export const SESSION_LIFETIME_MS = 12 * HOUR;
/** How long Discord's consent page may take. */
export const STATE_LIFETIME_MS = 10 * MINUTE;

export interface DashboardSession {
  idHash: string;
  userId: string;
  userName: string;
  guildIds: readonly string[];
  expiresAt: Date;
  /** The form token of this session (every POST carries it). */
  csrfToken: string;
  /** The message the last change left for the next page. */
  flash: SessionFlash | null;
}

export type SignInOutcome =
  | { kind: 'signed_in'; sessionCookie: string; next: string; userId: string }
  /** The person pressed Cancel on Discord's page. */
  | { kind: 'denied' }
  /** The answer does not belong to a sign-in this browser started (forged, replayed, expired, another tab). */
  | { kind: 'bad_state' }
  | { kind: 'discord_error' };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/**
 * Where the two cookies' sealed values belong: a state cookie does not open as a session cookie,
 * nor the reverse (the cipher's associated data differs).
 */
const STATE_COOKIE_SEAL = { table: 'cookie', column: 'dashboard_state', row: '' } as const;
const SESSION_COOKIE_SEAL = { table: 'cookie', column: 'dashboard_session', row: '' } as const;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Where a sign-in may return to: a dashboard path, nothing else (no open redirect). */
export function safeNext(next: string | undefined | null): string {
  return next && /^\/dashboard(\/[\w./-]*)?$/.test(next) && !next.includes('..') && !next.includes('//') ? next : '/dashboard';
}

export interface SignInDeps {
  oauth: Pick<DiscordUserOAuth, 'authorizeUrl' | 'exchangeCode' | 'currentUser' | 'currentUserGuilds' | 'revoke'>;
  sessions: DashboardSessionRepository;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** `$PUBLIC_URL/dashboard/callback`. */
  redirectUri: () => string;
}

/**
 * Sign-in with Discord for the dashboard (OAuth2 authorization code, docs/discord-api-notes.md §1).
 *
 * - The `state` is a random nonce that the browser also holds, sealed, in a short-lived cookie: an
 *   answer is accepted only in the browser that asked, once (the cookie is cleared).
 * - The Discord token serves the callback only: it reads who the user is and which servers Discord
 *   lists for them, then it is revoked. Nothing Tierlink keeps can act as the user on Discord.
 * - The session id lives in the browser sealed with SECRET_KEY (AES-GCM) and in the database as its
 *   SHA-256: a stolen database signs nobody in, a changed key ends every session, and signing out
 *   deletes the row.
 */
export function createSignIn(deps: SignInDeps) {
  const { box, clock, logger } = deps;

  function csrfTokenOf(idHash: string): string {
    return box.sign(`dashboard-csrf:${idHash}`);
  }

  return {
    /** Starts a sign-in: the authorize URL to redirect to, and the sealed state the browser keeps. */
    begin(next: string | undefined): { authorizeUrl: string; stateCookie: string } {
      const nonce = randomBytes(24).toString('base64url');
      const expiresAt = clock.now().getTime() + STATE_LIFETIME_MS;
      const stateCookie = box.encrypt(JSON.stringify({ n: nonce, next: safeNext(next), exp: expiresAt }), STATE_COOKIE_SEAL);
      const authorizeUrl = deps.oauth.authorizeUrl({ scopes: DASHBOARD_SCOPES, state: nonce, redirectUri: deps.redirectUri() });
      return { authorizeUrl, stateCookie };
    },

    /** The callback: checks the state against the browser's cookie, learns who signed in, opens a session. */
    async complete(query: { code?: string; state?: string; error?: string }, stateCookie: string | undefined): Promise<SignInOutcome> {
      let started: { n: string; next: string; exp: number } | null;
      try {
        started = stateCookie
          ? (JSON.parse(box.decrypt(stateCookie, STATE_COOKIE_SEAL)) as { n: string; next: string; exp: number })
          : null;
      } catch {
        started = null;
      }
      const fresh = started !== null && typeof started.n === 'string' && started.exp > clock.now().getTime();
      if (!fresh || !query.state || !sameText(query.state, started!.n)) {
        logger.warn(
          { hasState: Boolean(query.state), hasCookie: Boolean(stateCookie) },
          'dashboard sign-in refused: state not started here',
        );
        return { kind: 'bad_state' };
      }
      if (query.error) return query.error === 'access_denied' ? { kind: 'denied' } : { kind: 'discord_error' };
      if (!query.code) return { kind: 'bad_state' };

      const tokens = await deps.oauth.exchangeCode(query.code, deps.redirectUri());
      if (!tokens.ok) {
        logger.warn({ kind: tokens.error.kind, detail: tokens.error.detail }, 'dashboard sign-in: the code exchange failed');
        return { kind: tokens.error.kind === 'invalid_grant' ? 'bad_state' : 'discord_error' };
      }
      const { accessToken } = tokens.value;
      try {
        const [user, guilds] = await Promise.all([deps.oauth.currentUser(accessToken), deps.oauth.currentUserGuilds(accessToken)]);
        if (!user.ok || !guilds.ok) {
          const problem = !user.ok ? user.error : !guilds.ok ? guilds.error : null;
          logger.warn({ kind: problem?.kind, detail: problem?.detail }, 'dashboard sign-in: Discord did not say who signed in');
          return { kind: 'discord_error' };
        }
        const sessionId = randomBytes(32).toString('base64url');
        const now = clock.now();
        await deps.sessions.create({
          idHash: sha256(sessionId),
          discordUserId: user.value.id,
          userName: (user.value.globalName ?? user.value.username).slice(0, 100),
          guildIds: guilds.value.slice(0, 200).map((g) => g.id),
          createdAt: now,
          expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
        });
        logger.info({ userId: user.value.id }, 'signed in to the dashboard');
        return {
          kind: 'signed_in',
          sessionCookie: box.encrypt(sessionId, SESSION_COOKIE_SEAL),
          next: started!.next,
          userId: user.value.id,
        };
      } finally {
        // Not kept: revoking also ends the refresh token Discord issued with it.
        const revoked = await deps.oauth.revoke(accessToken);
        if (!revoked.ok)
          logger.warn({ kind: revoked.error.kind }, 'dashboard sign-in: revoking the Discord token failed; it expires on its own');
      }
    },

    /** The live session a cookie names, or null. */
    async session(sessionCookie: string | undefined): Promise<DashboardSession | null> {
      if (!sessionCookie) return null;
      let sessionId: string;
      try {
        sessionId = box.decrypt(sessionCookie, SESSION_COOKIE_SEAL);
      } catch {
        return null;
      }
      const row: DashboardSessionRow | null = await deps.sessions.find(sha256(sessionId), clock.now());
      if (!row) return null;
      return {
        idHash: row.idHash,
        userId: row.discordUserId,
        userName: row.userName,
        guildIds: row.guildIds,
        expiresAt: row.expiresAt,
        csrfToken: csrfTokenOf(row.idHash),
        flash: row.flash ?? null,
      };
    },

    /** Whether a form's token is this session's. */
    checkCsrf(session: DashboardSession, token: unknown): boolean {
      return typeof token === 'string' && sameText(token, session.csrfToken);
    },

    async signOut(session: DashboardSession): Promise<void> {
      await deps.sessions.delete(session.idHash);
      logger.info({ userId: session.userId }, 'signed out of the dashboard');
    },

    async setFlash(session: DashboardSession, flash: SessionFlash): Promise<void> {
      await deps.sessions.setFlash(session.idHash, { tone: flash.tone, text: flash.text.slice(0, 500) });
    },

    /** The message left for this page by the last change, shown once. */
    async takeFlash(session: DashboardSession): Promise<SessionFlash | null> {
      if (!session.flash) return null;
      await deps.sessions.setFlash(session.idHash, null);
      return session.flash;
    },
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
