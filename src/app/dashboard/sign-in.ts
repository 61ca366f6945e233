import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DiscordUserOAuth } from '../../edges/outbound/discord/user-oauth';
import type { DiscordSignIn } from '../discord-sign-in';
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
  /** The user's Discord locale at sign-in (`de`, `pt-BR`, …); null when Discord did not say. */
  locale: string | null;
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
/** Where the session cookie's sealed value belongs: it opens as nothing else. */
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
  /** The one sign-in with Discord (src/app/discord-sign-in.ts). */
  discord: DiscordSignIn;
  oauth: Pick<DiscordUserOAuth, 'currentUserGuilds'>;
  sessions: DashboardSessionRepository;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** `$PUBLIC_URL/dashboard/callback`. */
  redirectUri: () => string;
}

export function createSignIn(deps: SignInDeps): SignIn {
  const { box, clock, logger } = deps;

  function csrfTokenOf(idHash: string): string {
    return box.sign(`dashboard-csrf:${idHash}`);
  }

  return {
    begin(next: string | undefined): { authorizeUrl: string; stateCookie: string } {
      const started = deps.discord.begin({
        kind: 'dashboard',
        scopes: DASHBOARD_SCOPES,
        redirectUri: deps.redirectUri(),
        payload: { next: safeNext(next) },
        lifetimeMs: STATE_LIFETIME_MS,
      });
      return { authorizeUrl: started.authorizeUrl, stateCookie: started.sealed };
    },

    async complete(query: { code?: string; state?: string; error?: string }, stateCookie: string | undefined): Promise<SignInOutcome> {
      const outcome = await deps.discord.finish<{ next: string }, SignInOutcome>({
        kind: 'dashboard',
        answer: query,
        sealed: stateCookie,
        redirectUri: deps.redirectUri(),
        keepAuthorization: false,
        then: async ({ user, accessToken, payload }) => {
          const guilds = await deps.oauth.currentUserGuilds(accessToken);
          if (!guilds.ok) {
            logger.warn({ kind: guilds.error.kind, detail: guilds.error.detail }, 'dashboard sign-in: Discord did not list the servers');
            return { kind: 'discord_error' };
          }
          const sessionId = randomBytes(32).toString('base64url');
          const now = clock.now();
          await deps.sessions.create({
            idHash: sha256(sessionId),
            discordUserId: user.id,
            userName: (user.globalName ?? user.username).slice(0, 100),
            locale: user.locale ?? null,
            guildIds: guilds.value.slice(0, 200).map((g) => g.id),
            createdAt: now,
            expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
          });
          logger.info({ userId: user.id }, 'signed in to the dashboard');
          return {
            kind: 'signed_in',
            sessionCookie: box.encrypt(sessionId, SESSION_COOKIE_SEAL),
            next: safeNext(payload.next),
            userId: user.id,
          };
        },
      });
      return outcome.kind === 'denied' || outcome.kind === 'discord_error' ? { kind: outcome.kind } : outcome;
    },

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
        locale: row.locale ?? null,
        guildIds: row.guildIds,
        expiresAt: row.expiresAt,
        csrfToken: csrfTokenOf(row.idHash),
        flash: row.flash ?? null,
      };
    },

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

    async takeFlash(session: DashboardSession): Promise<SessionFlash | null> {
      if (!session.flash) return null;
      await deps.sessions.setFlash(session.idHash, null);
      return session.flash;
    },
  };
}

/**
 * Sign-in with Discord for the dashboard (src/app/discord-sign-in.ts: a state and PKCE verifier
 * sealed in the browser that asked, once).
 *
 * - The Discord token serves the callback only: it reads who the user is and which servers Discord
 *   lists for them, then it is revoked. Nothing Tierlink keeps can act as the user on Discord.
 * - The session id lives in the browser sealed with SECRET_KEY (AES-GCM) and in the database as its
 *   SHA-256: a stolen database signs nobody in, a changed key ends every session, and signing out
 *   deletes the row.
 */
export interface SignIn {
  /** Starts a sign-in: the authorize URL to redirect to, and the sealed state the browser keeps. */
  begin(next: string | undefined): { authorizeUrl: string; stateCookie: string };
  /** The callback: checks the state against the browser's cookie, learns who signed in, opens a session. */
  complete(query: { code?: string; state?: string; error?: string }, stateCookie: string | undefined): Promise<SignInOutcome>;
  /** The live session a cookie names, or null. */
  session(sessionCookie: string | undefined): Promise<DashboardSession | null>;
  /** Whether a form's token is this session's. */
  checkCsrf(session: DashboardSession, token: unknown): boolean;
  signOut(session: DashboardSession): Promise<void>;
  setFlash(session: DashboardSession, flash: SessionFlash): Promise<void>;
  /** The message left for this page by the last change, shown once. */
  takeFlash(session: DashboardSession): Promise<SessionFlash | null>;
}
