import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DiscordUser, DiscordUserOAuth } from '../edges/outbound/discord/user-oauth';
import { pkcePair } from '../edges/outbound/patreon/oauth';
import type { SecretBox } from '../edges/outbound/store/secret-box';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';

/**
 * Which sign-in a sealed state belongs to: the dashboard's, or a browser flow's (`/link`, `/connect`).
 * A state sealed for one kind does not open as the other (the cipher's associated data differs).
 */
export type SignInKind = 'dashboard' | 'flow';

export interface SignInRequest<P> {
  kind: SignInKind;
  scopes: readonly string[];
  redirectUri: string;
  /** `none`: Discord skips its page for someone who already authorized these scopes (docs/discord-api-notes.md §1.2). */
  prompt?: 'none';
  /** What the sign-in carries to its answer (a one-time link's token, where to go next): sealed in the browser. */
  payload: P;
  /** How long Discord's page may take. */
  lifetimeMs: number;
}

export interface SignInStart {
  authorizeUrl: string;
  /** What the browser keeps in an HttpOnly cookie: the state, the PKCE verifier and the payload, sealed with SECRET_KEY. */
  sealed: string;
  /** Names the browser's cookie when several sign-ins may run at once ({@link signInFlowOf} of the state). */
  flowId: string;
}

/** Discord's answer on the redirect URI, as its query carries it. */
export interface SignInAnswer {
  code?: string;
  state?: string;
  error?: string;
}

/** Who signed in, and the token, which serves the `then` of {@link DiscordSignIn.finish} only and is never kept. */
export interface SignedIn<P> {
  user: DiscordUser;
  accessToken: string;
  scopes: readonly string[];
  payload: P;
}

export type SignInRefusal<P> =
  /** The person pressed Cancel on Discord's page. */
  | { kind: 'denied'; payload: P }
  /** The answer does not belong to a sign-in this browser started (forged, replayed, expired, another browser). */
  | { kind: 'bad_state' }
  /** Discord failed (the code exchange, or who signed in); `payload` is the sign-in's. */
  | { kind: 'discord_error'; payload: P };

interface Sealed<P> {
  /** The state sent to Discord. */
  s: string;
  /** The PKCE verifier. */
  v: string;
  exp: number;
  p: P;
}

const sealOf = (kind: SignInKind) => ({ table: 'cookie', column: `discord_signin_${kind}`, row: '' }) as const;

/** The id of the sign-in a `state` belongs to (a prefix of its hash): names its cookie. Null for a value that is no state of ours. */
export function signInFlowOf(state: string | undefined): string | null {
  return state && /^[A-Za-z0-9_-]{32,64}$/.test(state) ? createHash('sha256').update(state).digest('hex').slice(0, 16) : null;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface DiscordSignInDeps {
  oauth: Pick<DiscordUserOAuth, 'authorizeUrl' | 'exchangeCode' | 'currentUser' | 'revoke'>;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
}

export function createDiscordSignIn(deps: DiscordSignInDeps): DiscordSignIn {
  const { box, clock, logger } = deps;

  return {
    begin<P>(request: SignInRequest<P>): SignInStart {
      const state = randomBytes(24).toString('base64url');
      const pkce = pkcePair();
      const content: Sealed<P> = { s: state, v: pkce.verifier, exp: clock.now().getTime() + request.lifetimeMs, p: request.payload };
      return {
        authorizeUrl: deps.oauth.authorizeUrl({
          scopes: request.scopes,
          state,
          redirectUri: request.redirectUri,
          codeChallenge: pkce.challenge,
          ...(request.prompt ? { prompt: request.prompt } : {}),
        }),
        sealed: box.encrypt(JSON.stringify(content), sealOf(request.kind)),
        flowId: signInFlowOf(state)!,
      };
    },

    async finish<P, T>(options: {
      kind: SignInKind;
      answer: SignInAnswer;
      sealed: string | undefined;
      redirectUri: string;
      keepAuthorization: boolean;
      then(signedIn: SignedIn<P>): Promise<T>;
    }): Promise<T | SignInRefusal<P>> {
      const { answer, kind } = options;
      let started: Sealed<P> | null;
      try {
        started = options.sealed ? (JSON.parse(box.decrypt(options.sealed, sealOf(kind))) as Sealed<P>) : null;
      } catch {
        started = null;
      }
      const fresh =
        started !== null && typeof started.s === 'string' && typeof started.v === 'string' && started.exp > clock.now().getTime();
      if (!fresh || !answer.state || !sameText(answer.state, started!.s)) {
        logger.warn(
          { kind, hasState: Boolean(answer.state), hasCookie: Boolean(options.sealed) },
          'Discord sign-in refused: state not started in this browser',
        );
        return { kind: 'bad_state' };
      }
      const { p: payload, v: verifier } = started!;
      if (answer.error) {
        if (answer.error !== 'access_denied')
          logger.warn({ kind, error: answer.error.slice(0, 100) }, 'Discord answered a sign-in with an error');
        return answer.error === 'access_denied' ? { kind: 'denied', payload } : { kind: 'discord_error', payload };
      }
      if (!answer.code) return { kind: 'bad_state' };

      const tokens = await deps.oauth.exchangeCode(answer.code, options.redirectUri, verifier);
      if (!tokens.ok) {
        logger.warn({ kind, error: tokens.error.kind, detail: tokens.error.detail }, 'Discord sign-in: the code exchange failed');
        return tokens.error.kind === 'invalid_grant' ? { kind: 'bad_state' } : { kind: 'discord_error', payload };
      }
      const { accessToken, scopes } = tokens.value;
      try {
        const user = await deps.oauth.currentUser(accessToken);
        if (!user.ok) {
          logger.warn({ kind, error: user.error.kind, detail: user.error.detail }, 'Discord sign-in: Discord did not say who signed in');
          return { kind: 'discord_error', payload };
        }
        return await options.then({ user: user.value, accessToken, scopes, payload });
      } finally {
        if (!options.keepAuthorization) {
          // Revoking ends the refresh token Discord issued with it too.
          const revoked = await deps.oauth.revoke(accessToken);
          if (!revoked.ok)
            logger.warn({ kind, error: revoked.error.kind }, 'Discord sign-in: revoking the token failed; it expires on its own');
        }
      }
    },
  };
}

/**
 * Sign-in with Discord (OAuth2 authorization code, docs/discord-api-notes.md §1), the one way every
 * page signs a person in: the dashboard, and the pages of `/link` and `/connect` before the service's.
 *
 * - The `state` is random; the browser keeps it, sealed with the PKCE verifier and the sign-in's
 *   payload, in a short-lived HttpOnly cookie: an answer is accepted only in the browser that asked,
 *   within its lifetime, and (the caller clears the cookie) once. The verifier never leaves the
 *   browser's sealed cookie and this server; Discord holds only its challenge.
 * - The token serves the answer only: it says who signed in (and whatever `then` asks Discord for)
 *   and is dropped. With `keepAuthorization: false` it is also revoked, which ends the person's
 *   authorization of the application; `true` leaves that authorization with Discord (nothing of it
 *   is kept here), so that next time `prompt=none` skips Discord's page (docs/sign-in-and-role-authority.md).
 */
export interface DiscordSignIn {
  begin<P>(request: SignInRequest<P>): SignInStart;
  /**
   * Discord's answer, in the browser whose sealed cookie is `sealed`: checks the state, exchanges
   * the code with the verifier, reads who signed in and hands them to `then`.
   */
  finish<P, T>(options: {
    kind: SignInKind;
    answer: SignInAnswer;
    sealed: string | undefined;
    redirectUri: string;
    keepAuthorization: boolean;
    then(signedIn: SignedIn<P>): Promise<T>;
  }): Promise<T | SignInRefusal<P>>;
}
