import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxResponse } from './http-kit';
import { apiError } from './http-kit';
import type { RenderContext } from './json-api';
import type { Store } from './store';
import type { OAuthClientRecord, TokenKind, TokenRecord, UserRecord } from './types';

export interface Authenticated {
  token: TokenRecord;
  client: OAuthClientRecord;
  user: UserRecord;
  scopes: ReadonlySet<string>;
}

function bearer(headers: IncomingHttpHeaders): string | null {
  const value = headers.authorization;
  if (!value) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1] ?? null;
}

/** A live access token, or null (unknown, revoked, expired by the injected clock, or a refresh token). */
export function liveAccessToken(store: Store, value: string | null): TokenRecord | null {
  if (value === null) return null;
  const token = store.tokens.get(value);
  if (!token || token.kind !== 'access' || token.revoked) return null;
  if (token.expiresAt && token.expiresAt.getTime() <= store.clock.now().getTime()) return null;
  return token;
}

/** For the request log: whose token a request carried. A creator token is one of the client's owner. */
export function tokenKindOf(store: Store, headers: IncomingHttpHeaders): TokenKind {
  const value = bearer(headers);
  if (value === null) return 'none';
  const token = liveAccessToken(store, value);
  if (!token) return 'invalid';
  return store.clients.get(token.clientId)?.ownerUserId === token.userId ? 'creator' : 'patron';
}

/**
 * Spec: Authentication §6 and §8: every v2 call sends `Authorization: Bearer`; a missing or
 * invalid token, or missing scopes, gives 401 with an `errors` array.
 */
export function authenticate(store: Store, headers: IncomingHttpHeaders, required: readonly string[]): Authenticated | SandboxResponse {
  const value = bearer(headers);
  const challenge = { 'www-authenticate': 'Bearer' };
  if (value === null) return apiError(401, 'No access token was sent (Authorization: Bearer <token>).', {}, challenge);
  const token = liveAccessToken(store, value);
  if (!token) return apiError(401, 'The access token is invalid or has expired.', {}, challenge);
  const client = store.clients.get(token.clientId);
  const user = store.users.get(token.userId);
  if (!client || !user) return apiError(401, 'The access token is invalid.', {}, challenge);
  const scopes = new Set(token.scopes);
  const missing = required.filter((s) => !scopes.has(s));
  if (missing.length > 0) return apiError(401, `The access token lacks the scope(s): ${missing.join(', ')}.`, {}, challenge);
  return { token, client, user, scopes };
}

export function isResponse(value: Authenticated | SandboxResponse): value is SandboxResponse {
  return 'status' in value;
}

export function renderContextFor(store: Store, baseUrl: string, auth: Authenticated): RenderContext {
  return { store, baseUrl, scopes: auth.scopes, userId: auth.user.id, client: auth.client };
}
