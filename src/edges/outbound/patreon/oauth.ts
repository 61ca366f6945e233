import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../../shared/clock';
import { PatreonApiError } from './errors';
import type { Http, HttpOptions } from './http';
import { createHttp } from './http';

/** An access + refresh token pair as we keep it (spec: Authentication §4.4). */
export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** From `expires_in` (seconds) and the injected clock at the time of the answer. */
  expiresAt: Date;
  scopes: string[];
}

export const TOKEN_PATH = '/api/oauth2/token';
export const AUTHORIZE_PATH = '/oauth2/authorize';

export interface AuthorizeUrlInput {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  /** Echoed back unchanged on the redirect (Authentication §4.2): our CSRF / session token. */
  state: string;
  /** PKCE (RFC 7636): BASE64URL(SHA-256(code_verifier)), sent with `code_challenge_method=S256`. */
  codeChallenge: string;
}

/** A PKCE pair: the verifier stays on our server; only its S256 challenge goes into the URL. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Spec: "OAuth endpoints", GET /oauth2/authorize; scopes are space-separated. PKCE rides along:
 * Patreon does not document it, clients that send it work (docs/patreon-api-notes.md §7).
 */
export function authorizeUrl(input: AuthorizeUrlInput): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  });
  return `${input.baseUrl.replace(/\/+$/, '')}${AUTHORIZE_PATH}?${params.toString()}`;
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]),
  scope: z.string().optional(),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'token_type must be Bearer'),
});

export interface TokenEndpointDeps {
  http: Http;
  clientId: string;
  clientSecret: string;
  clock: Clock;
}

async function postToken(deps: TokenEndpointDeps, form: Record<string, string>): Promise<OAuthTokens> {
  // Server to server, form-encoded (spec: "The token request must be made server to server").
  // `unsafe`: a refresh rotates the refresh token, so a lost answer must not be replayed.
  const res = await deps.http.request({
    method: 'POST',
    path: TOKEN_PATH,
    form: new URLSearchParams({ ...form, client_id: deps.clientId, client_secret: deps.clientSecret }),
    unsafe: true,
  });
  const parsed = tokenResponseSchema.safeParse(res.body);
  if (!parsed.success) {
    throw new PatreonApiError({
      kind: 'invalid_response',
      status: res.status,
      method: 'POST',
      path: TOKEN_PATH,
      message: 'the token answer is not the expected JSON',
    });
  }
  const body = parsed.data;
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    expiresAt: new Date(deps.clock.now().getTime() + body.expires_in * 1000),
    scopes: (body.scope ?? '').split(/\s+/).filter((s) => s !== ''),
  };
}

/** Authentication §4.3: trades an authorization code for tokens, proving the PKCE challenge with its verifier. */
export function exchangeCode(deps: TokenEndpointDeps, input: ExchangeCodeInput): Promise<OAuthTokens> {
  return postToken(deps, {
    grant_type: 'authorization_code',
    code: input.code,
    redirect_uri: input.redirectUri,
    code_verifier: input.codeVerifier,
  });
}

export interface ExchangeCodeInput {
  code: string;
  redirectUri: string;
  /** The PKCE verifier of the authorization request's `code_challenge`. */
  codeVerifier: string;
}

/** Authentication §4.5: a new pair for a refresh token. The old refresh token may stop working (rotation). */
export function refreshToken(deps: TokenEndpointDeps, token: string): Promise<OAuthTokens> {
  return postToken(deps, { grant_type: 'refresh_token', refresh_token: token });
}

export interface OAuthClient {
  authorizeUrl(input: { redirectUri: string; scopes: readonly string[]; state: string; codeChallenge: string }): string;
  exchangeCode(input: ExchangeCodeInput): Promise<OAuthTokens>;
  refreshToken(token: string): Promise<OAuthTokens>;
}

export interface OAuthClientOptions extends Omit<HttpOptions, 'baseUrl'> {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The three OAuth operations bound to one registered client. */
export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  const deps: TokenEndpointDeps = {
    http: createHttp(options),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    clock: options.clock,
  };
  return {
    authorizeUrl: (input) => authorizeUrl({ ...input, baseUrl: options.baseUrl, clientId: options.clientId }),
    exchangeCode: (input) => exchangeCode(deps, input),
    refreshToken: (token) => refreshToken(deps, token),
  };
}
