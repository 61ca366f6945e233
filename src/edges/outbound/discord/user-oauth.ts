import { type Result, err, ok } from '../../../core/result';

/**
 * Discord's OAuth2 authorization-code grant for people (docs/discord-api-notes.md §1): the authorize
 * URL, the code exchange, the user endpoints a user token reaches, and revocation. Every sign-in
 * with Discord goes through it (src/app/discord-sign-in.ts): the dashboard's (`identify guilds`), the
 * `/link` and `/connect` pages' (`identify`) and the join page's (`identify guilds.join`).
 *
 * Plain `fetch`, not @discordjs/rest: a user token's rate limits are the user's, not the bot's
 * buckets, and the token endpoints take form bodies and answer RFC 6749 errors.
 */

export interface DiscordUserOAuthOptions {
  /** The application id (DISCORD_APPLICATION_ID). */
  clientId: string;
  /** DISCORD_CLIENT_SECRET. */
  clientSecret: string;
  /** DISCORD_WEB_BASE_URL: the authorize page is `{webBaseUrl}/oauth2/authorize`. */
  webBaseUrl: string;
  /** DISCORD_API_BASE_URL: the token endpoints hang under it, the user routes under `{apiBaseUrl}/v10`. */
  apiBaseUrl: string;
  /** Per request; 10 s when absent. */
  timeoutMs?: number;
}

export interface UserTokens {
  accessToken: string;
  refreshToken: string | null;
  /** Seconds, as Discord answers (604800: seven days). */
  expiresIn: number;
  scopes: string[];
}

export interface DiscordUser {
  id: string;
  username: string;
  globalName: string | null;
  /** The language of the user's Discord client (`locale` of `GET /users/@me`); absent when not read. */
  locale?: string | null;
}

/** A guild of `GET /users/@me/guilds`: `permissions` are guild-level and relative to the user. */
export interface UserGuild {
  id: string;
  name: string;
  owner: boolean;
  permissions: bigint;
}

export type UserOAuthErrorKind =
  /** The code or refresh token is unknown, used, expired or for another redirect URI. */
  | 'invalid_grant'
  /** DISCORD_CLIENT_SECRET (or the application id) is wrong. */
  | 'invalid_client'
  /** The access token is not (or no longer) valid, or lacks the scope. */
  | 'unauthorized'
  | 'rate_limited'
  /** Discord did not answer, or answered something unexpected. */
  | 'unavailable';

export interface UserOAuthError {
  kind: UserOAuthErrorKind;
  status: number | null;
  /** For the log: Discord's error and description, bounded, never a token. */
  detail: string;
  retryAfterMs?: number;
}

const API_VERSION = 'v10';
const USER_AGENT = 'DiscordBot (https://github.com/tierlink/tierlink, 0.1.0)';

function bounded(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function createDiscordUserOAuth(options: DiscordUserOAuthOptions): DiscordUserOAuth {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const api = options.apiBaseUrl.replace(/\/+$/, '');
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;

  async function send(url: string, init: RequestInit): Promise<Result<{ status: number; body: unknown }, UserOAuthError>> {
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { 'User-Agent': USER_AGENT, Accept: 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      return err({ kind: 'unavailable', status: null, detail: bounded(error instanceof Error ? error.message : String(error)) });
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = null;
    }
    if (response.ok) return ok({ status: response.status, body });
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const described = [fields.error, fields.error_description, fields.message].filter((v) => typeof v === 'string').join(': ');
    const detail = bounded(`${response.status} ${described || 'no error body'}`);
    if (response.status === 429) {
      const seconds = Number(fields.retry_after ?? response.headers.get('retry-after') ?? 1);
      return err({ kind: 'rate_limited', status: 429, detail, retryAfterMs: Math.ceil((Number.isFinite(seconds) ? seconds : 1) * 1000) });
    }
    if (fields.error === 'invalid_grant') return err({ kind: 'invalid_grant', status: response.status, detail });
    if (fields.error === 'invalid_client') return err({ kind: 'invalid_client', status: response.status, detail });
    if (response.status === 401 || response.status === 403) return err({ kind: 'unauthorized', status: response.status, detail });
    return err({ kind: 'unavailable', status: response.status, detail });
  }

  /** The token endpoints take form bodies only, with the client's Basic credentials (§1.1, §1.3). */
  function postForm(path: string, form: Record<string, string>) {
    return send(`${api}${path}`, {
      method: 'POST',
      headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  function getAsUser(path: string, accessToken: string) {
    return send(`${api}/${API_VERSION}${path}`, { method: 'GET', headers: { Authorization: `Bearer ${accessToken}` } });
  }

  function toTokens(body: unknown): Result<UserTokens, UserOAuthError> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof b.access_token !== 'string' || b.access_token === '') {
      return err({ kind: 'unavailable', status: 200, detail: 'the token response carries no access_token' });
    }
    return ok({
      accessToken: b.access_token,
      refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : null,
      expiresIn: typeof b.expires_in === 'number' ? b.expires_in : 0,
      scopes: typeof b.scope === 'string' ? b.scope.split(' ').filter(Boolean) : [],
    });
  }

  return {
    authorizeUrl(request: {
      scopes: readonly string[];
      state: string;
      redirectUri: string;
      prompt?: 'consent' | 'none';
      codeChallenge?: string;
    }): string {
      const url = new URL('/oauth2/authorize', `${options.webBaseUrl.replace(/\/+$/, '')}/`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: options.clientId,
        scope: request.scopes.join(' '),
        state: request.state,
        redirect_uri: request.redirectUri,
        ...(request.prompt ? { prompt: request.prompt } : {}),
        ...(request.codeChallenge ? { code_challenge: request.codeChallenge, code_challenge_method: 'S256' } : {}),
      }).toString();
      return url.toString();
    },

    async exchangeCode(code: string, redirectUri: string, codeVerifier?: string): Promise<Result<UserTokens, UserOAuthError>> {
      const answer = await postForm('/oauth2/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
      });
      return answer.ok ? toTokens(answer.value.body) : answer;
    },

    async refresh(refreshToken: string): Promise<Result<UserTokens, UserOAuthError>> {
      const answer = await postForm('/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
      return answer.ok ? toTokens(answer.value.body) : answer;
    },

    async revoke(token: string): Promise<Result<void, UserOAuthError>> {
      const answer = await postForm('/oauth2/token/revoke', { token });
      return answer.ok ? ok(undefined) : answer;
    },

    async currentUser(accessToken: string): Promise<Result<DiscordUser, UserOAuthError>> {
      const answer = await getAsUser('/users/@me', accessToken);
      if (!answer.ok) return answer;
      const b = (answer.value.body ?? {}) as Record<string, unknown>;
      if (typeof b.id !== 'string' || typeof b.username !== 'string') {
        return err({ kind: 'unavailable', status: answer.value.status, detail: 'the user object lacks id or username' });
      }
      return ok({
        id: b.id,
        username: b.username,
        globalName: typeof b.global_name === 'string' ? b.global_name : null,
        locale: typeof b.locale === 'string' ? b.locale.slice(0, 16) : null,
      });
    },

    async currentUserGuilds(accessToken: string): Promise<Result<UserGuild[], UserOAuthError>> {
      const answer = await getAsUser('/users/@me/guilds', accessToken);
      if (!answer.ok) return answer;
      if (!Array.isArray(answer.value.body))
        return err({ kind: 'unavailable', status: answer.value.status, detail: 'guilds is not a list' });
      const guilds: UserGuild[] = [];
      for (const raw of answer.value.body as Array<Record<string, unknown>>) {
        if (typeof raw.id !== 'string' || !/^\d{1,20}$/.test(raw.id)) continue;
        let permissions: bigint;
        try {
          permissions = typeof raw.permissions === 'string' ? BigInt(raw.permissions) : 0n;
        } catch {
          permissions = 0n;
        }
        guilds.push({ id: raw.id, name: typeof raw.name === 'string' ? raw.name : raw.id, owner: raw.owner === true, permissions });
      }
      return ok(guilds);
    },
  };
}

export interface DiscordUserOAuth {
  /**
   * `{web}/oauth2/authorize?response_type=code&…` (§1.2): `state` binds the answer to the browser
   * that asked; `codeChallenge` (S256, §1.2 "PKCE in practice") binds the code to this request's
   * verifier; `prompt: 'none'` skips Discord's page for a user who already authorized these scopes.
   */
  authorizeUrl(request: {
    scopes: readonly string[];
    state: string;
    redirectUri: string;
    prompt?: 'consent' | 'none';
    codeChallenge?: string;
  }): string;
  /** `codeVerifier`: the PKCE verifier of the request whose `codeChallenge` Discord holds for this code. */
  exchangeCode(code: string, redirectUri: string, codeVerifier?: string): Promise<Result<UserTokens, UserOAuthError>>;
  refresh(refreshToken: string): Promise<Result<UserTokens, UserOAuthError>>;
  /** Ends the whole authorization the token belongs to (every access and refresh token of it, §1.3). */
  revoke(token: string): Promise<Result<void, UserOAuthError>>;
  /** `GET /users/@me` (scope `identify`). */
  currentUser(accessToken: string): Promise<Result<DiscordUser, UserOAuthError>>;
  /** `GET /users/@me/guilds` (scope `guilds`): at most 200, which is every guild a user can be in (§1.5). */
  currentUserGuilds(accessToken: string): Promise<Result<UserGuild[], UserOAuthError>>;
}
