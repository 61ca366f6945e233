import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CONSENT_DECISION_PATH, consentPage, errorPage } from './consent-page';
import type { Route, SandboxResponse } from './http-kit';
import { html, mediaType, parseForm, plainJson, redirect, route } from './http-kit';
import { DEFAULT_V1_SCOPES, V1_SCOPE_MAP, isV2Scope } from './scopes';
import type { Store } from './store';

/** Authorization codes and consent requests live 10 minutes (by the injected clock). */
export const CODE_LIFETIME_MS = 10 * 60_000;

/** How many users the consent page suggests; any other id may be typed. */
const SUGGESTED_USERS = 50;

function addParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}

/** RFC 7636 §4.1: a code verifier (and a plain challenge) is 43 to 128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * PKCE as RFC 7636 has the server check it. Patreon's documentation does not mention PKCE
 * (docs/patreon-api-notes.md §7); clients that always send it work against Patreon. The stand-in
 * is strict: a challenge given at authorize must be proven at the token exchange (else
 * `invalid_grant`), and a verifier without a challenge is refused too (no downgrade either way).
 */
function verifierMatches(challenge: { value: string; method: 'S256' | 'plain' }, verifier: string): boolean {
  const derived = challenge.method === 'S256' ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier;
  const a = Buffer.from(derived);
  const b = Buffer.from(challenge.value);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The default scope when none is asked for (Authentication §11), as v2 scopes. */
function defaultScopes(): string[] {
  return [...new Set(DEFAULT_V1_SCOPES.flatMap((s) => V1_SCOPE_MAP[s] ?? []))];
}

/**
 * OAuth routes (spec: "OAuth endpoints", Authentication §4): the authorize page, the consent
 * decision, and the token endpoint (authorization code and refresh, refresh tokens rotate).
 */
export function oauthRoutes(store: Store): Route[] {
  const badAuthorize = (message: string): SandboxResponse => html(400, errorPage('Invalid authorization request', message));

  const authorize = route('GET', '/oauth2/authorize', (req) => {
    const q = req.query;
    const client = store.clients.get(q.get('client_id') ?? '');
    if (!client) return badAuthorize('Unknown client_id.');
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      return badAuthorize('redirect_uri is missing or is not one of the client\u2019s registered redirect URIs.');
    }
    if (q.get('response_type') !== 'code') return badAuthorize('response_type must be "code".');
    const scopeParam = q.get('scope');
    let scopes: string[];
    if (scopeParam === null) {
      scopes = defaultScopes();
    } else {
      scopes = [...new Set(scopeParam.split(/\s+/).filter((s) => s !== ''))];
      const unknown = scopes.filter((s) => !isV2Scope(s));
      // A client created for v2 may request only v2 scopes (Authentication §3).
      if (unknown.length > 0) return badAuthorize(`Unknown or non-v2 scope(s): ${unknown.join(', ')}.`);
    }
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? 'plain';
    if (challenge === null && q.get('code_challenge_method') !== null) return badAuthorize('code_challenge_method without code_challenge.');
    if (challenge !== null) {
      if (method !== 'S256' && method !== 'plain') return badAuthorize('code_challenge_method must be S256 or plain.');
      if (!PKCE_VALUE.test(challenge)) return badAuthorize('code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~].');
    }
    const id = randomBytes(18).toString('base64url');
    store.pendingAuthorizations.set(id, {
      id,
      clientId: client.id,
      redirectUri,
      scopes,
      state: q.get('state'),
      expiresAt: new Date(store.clock.now().getTime() + CODE_LIFETIME_MS),
      used: false,
      codeChallenge: challenge === null ? null : { value: challenge, method: method as 'S256' | 'plain' },
    });
    const users = [...store.users.values()].slice(0, SUGGESTED_USERS).map((u) => ({ id: u.id, fullName: u.fullName }));
    return html(200, consentPage({ requestId: id, clientName: client.name, scopes, redirectUri, users }));
  });

  const decide = route('POST', CONSENT_DECISION_PATH, (req) => {
    if (mediaType(req.headers) !== 'application/x-www-form-urlencoded') return badAuthorize('Expected a form post.');
    const form = parseForm(req.body);
    const pending = store.pendingAuthorizations.get(form.get('request') ?? '');
    if (!pending || pending.used || pending.expiresAt.getTime() <= store.clock.now().getTime()) {
      return badAuthorize('This authorization request is unknown, was already answered, or has expired.');
    }
    const decision = form.get('decision');
    if (decision === 'deny') {
      pending.used = true;
      return redirect(addParams(pending.redirectUri, { error: 'access_denied', state: pending.state }));
    }
    if (decision !== 'allow') return badAuthorize('decision must be allow or deny.');
    const userId = (form.get('user_id') ?? '').trim();
    if (!store.users.has(userId)) return badAuthorize(`No sandbox user with id ${userId || '(empty)'}.`);
    pending.used = true;
    const code = randomBytes(24).toString('base64url');
    store.codes.set(code, {
      code,
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      scopes: pending.scopes,
      userId,
      expiresAt: new Date(store.clock.now().getTime() + CODE_LIFETIME_MS),
      used: false,
      codeChallenge: pending.codeChallenge,
    });
    return redirect(addParams(pending.redirectUri, { code, state: pending.state }));
  });

  const oauthError = (status: number, error: string, description: string): SandboxResponse =>
    plainJson(status, { error, error_description: description }, { 'cache-control': 'no-store' });

  const token = route('POST', '/api/oauth2/token', (req) => {
    if (mediaType(req.headers) !== 'application/x-www-form-urlencoded') {
      return oauthError(400, 'invalid_request', 'The token endpoint accepts only application/x-www-form-urlencoded bodies.');
    }
    const form = parseForm(req.body);
    const grantType = form.get('grant_type');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    }
    const client = store.clients.get(form.get('client_id') ?? '');
    if (!client || client.secret !== form.get('client_secret'))
      return oauthError(401, 'invalid_client', 'Unknown client or wrong client_secret.');
    const now = store.clock.now().getTime();

    let issued;
    if (grantType === 'authorization_code') {
      const code = store.codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt.getTime() <= now || code.clientId !== client.id) {
        return oauthError(400, 'invalid_grant', 'The code is unknown, used, expired, or was issued to another client.');
      }
      if (code.redirectUri !== form.get('redirect_uri'))
        return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
      const verifier = form.get('code_verifier');
      if (
        code.codeChallenge === null
          ? verifier !== null
          : verifier === null || !PKCE_VALUE.test(verifier) || !verifierMatches(code.codeChallenge, verifier)
      ) {
        // A failed proof spends the code: it cannot be tried again with another verifier.
        code.used = true;
        return oauthError(
          400,
          'invalid_grant',
          code.codeChallenge === null
            ? 'code_verifier was sent, but the authorization request had no code_challenge.'
            : 'code_verifier is missing or does not match the code_challenge of the authorization request.',
        );
      }
      code.used = true;
      issued = store.issueTokens(client.id, code.userId, code.scopes);
    } else {
      const old = store.tokens.get(form.get('refresh_token') ?? '');
      if (!old || old.kind !== 'refresh' || old.revoked || old.clientId !== client.id) {
        return oauthError(400, 'invalid_grant', 'The refresh token is unknown, revoked, or already used.');
      }
      // Rotation: the used refresh token and the access token issued with it stop working.
      old.revoked = true;
      const partner = store.tokens.get(old.partner);
      if (partner) partner.revoked = true;
      issued = store.issueTokens(client.id, old.userId, old.scopes);
    }
    return plainJson(
      200,
      {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        expires_in: issued.expiresIn,
        scope: issued.scopes.join(' '),
        token_type: 'Bearer',
      },
      { 'cache-control': 'no-store' },
    );
  });

  return [authorize, decide, token];
}
