import type { IncomingHttpHeaders } from 'node:http';
import type { RouteContext, RouteDefinition, RouteResult } from './http-router';
import type { OAuth2Store, OAuth2TokenPair } from './oauth2-store';
import { isOAuth2Scope, pkceChallenge } from './oauth2-store';
import type { DiscordState } from './state';
import { SandboxUsageError } from './state';

/** What the web side (the authorize page) answers: HTML or a redirect. */
export interface WebAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string, status = 200): WebAnswer {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
  return { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }, body: html };
}

function errorPage(message: string): WebAnswer {
  return page('Discord sandbox: invalid authorization', `<h1>Invalid authorization request</h1><p>${escapeHtml(message)}</p>`, 400);
}

function redirectTo(uri: string, params: Record<string, string | null>): WebAnswer {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return { status: 302, headers: { Location: url.toString(), 'Cache-Control': 'no-store' }, body: '' };
}

/** The cookie of a browser logged in on the authorize page (discord.com keeps one too). */
export const SESSION_COOKIE = 'sandbox_discord_session';

function sessionOf(headers: IncomingHttpHeaders): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The pending request id inside a consent page (used by `approveAuthorization`). */
export function requestIdFromAuthorizePage(html: string): string | null {
  return /name="request" value="([^"]+)"/.exec(html)?.[1] ?? null;
}

/**
 * `{web}/oauth2/authorize` (no `/api`, docs/discord-api-notes.md §1.1–1.2): GET validates the request
 * and shows a consent form (who logs in, Allow or Deny); POST is that form's answer and redirects to
 * the registered redirect URI with `code` and `state`, or `error=access_denied`. A `code_challenge`
 * is accepted with method `S256` only (§1.2 "PKCE in practice"). `prompt` (§1.2): `none` skips the
 * page when the browser is logged in (its session cookie) as a user who already authorized the
 * application for every scope asked, and redirects with a code at once; otherwise, and with
 * `consent` or no `prompt`, the page asks. Allowing logs the browser in.
 */
export function authorizePage(store: OAuth2Store, state: DiscordState, applicationName: string) {
  function show(query: URLSearchParams, headers: IncomingHttpHeaders): WebAnswer {
    if (query.get('client_id') !== store.applicationId) return errorPage('Unknown application: client_id names no application.');
    const redirectUri = query.get('redirect_uri');
    if (!redirectUri || !store.redirectUris.includes(redirectUri)) return errorPage('Invalid OAuth2 redirect_uri.');
    if (query.get('response_type') !== 'code') {
      return errorPage('response_type must be "code" (the sandbox plays the authorization code grant only).');
    }
    const scopes = [...new Set((query.get('scope') ?? '').split(' ').filter((s) => s !== ''))];
    const unknown = scopes.filter((s) => !isOAuth2Scope(s));
    if (scopes.length === 0 || unknown.length > 0) return errorPage(`Invalid scope: ${unknown.join(', ') || '(none asked)'}.`);
    const stateParam = query.get('state');
    const challenge = query.get('code_challenge');
    if (challenge !== null) {
      if (query.get('code_challenge_method') !== 'S256') {
        return redirectTo(redirectUri, {
          error: 'invalid_request',
          error_description: 'Unsupported "code_challenge_method"',
          state: stateParam,
        });
      }
      if (!PKCE_VALUE.test(challenge)) {
        return redirectTo(redirectUri, { error: 'invalid_request', error_description: 'Invalid "code_challenge"', state: stateParam });
      }
    }
    const pending = store.openAuthorization({ redirectUri, scopes, state: stateParam, codeChallenge: challenge });
    const loggedIn = store.sessionUser(sessionOf(headers));
    if (query.get('prompt') === 'none' && loggedIn !== null && store.isAuthorized(loggedIn, scopes)) {
      return redirectTo(redirectUri, { code: store.issueCode(pending, loggedIn), state: stateParam });
    }
    const list = scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
    const who = loggedIn ? state.users.get(loggedIn) : undefined;
    return page(
      `Authorize ${applicationName}`,
      `<h1>${escapeHtml(applicationName)} wants to access your Discord account</h1><ul>${list}</ul>` +
        (who ? `<p>Logged in as <strong>${escapeHtml(who.username)}</strong>.</p>` : '') +
        `<p>You will be sent to <code>${escapeHtml(redirectUri)}</code>.</p>` +
        `<form method="post" action="/oauth2/authorize"><input type="hidden" name="request" value="${escapeHtml(pending.id)}">` +
        `<label for="user_id">Log in as (sandbox user id)</label> <input id="user_id" name="user_id" required autocomplete="off"` +
        `${who ? ` value="${escapeHtml(who.id)}"` : ''}>` +
        `<button type="submit" name="decision" value="allow">Authorize</button>` +
        `<button type="submit" name="decision" value="deny" formnovalidate>Cancel</button></form>`,
    );
  }

  function decide(headers: IncomingHttpHeaders, raw: Buffer): WebAnswer {
    if (!(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return errorPage('Expected a form post.');
    const form = new URLSearchParams(raw.toString('utf8'));
    const pending = store.openRequest(form.get('request') ?? '');
    if (!pending) return errorPage('This authorization request is unknown, was already answered, or has expired.');
    const decision = form.get('decision');
    if (decision === 'deny') {
      pending.used = true;
      return redirectTo(pending.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request',
        state: pending.state,
      });
    }
    if (decision !== 'allow') return errorPage('decision must be allow or deny.');
    const userId = (form.get('user_id') ?? '').trim();
    const user = state.users.get(userId);
    if (!user || user.bot) return errorPage(`No sandbox user with id ${userId || '(empty)'}.`);
    store.authorize(userId, pending.scopes);
    const answer = redirectTo(pending.redirectUri, { code: store.issueCode(pending, userId), state: pending.state });
    const session = store.sessionUser(sessionOf(headers)) === userId ? sessionOf(headers)! : store.openSession(userId);
    answer.headers['Set-Cookie'] = `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax`;
    return answer;
  }

  return {
    handle(method: string, query: URLSearchParams, headers: IncomingHttpHeaders, raw: Buffer): WebAnswer {
      if (method === 'GET') return show(query, headers);
      if (method === 'POST') return decide(headers, raw);
      return { status: 405, headers: {}, body: '' };
    },
  };
}

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function oauthError(status: number, error: string, description?: string): RouteResult {
  return { status, headers: noStore, body: description === undefined ? { error } : { error, error_description: description } };
}

function tokenResponse(pair: OAuth2TokenPair): RouteResult {
  return {
    status: 200,
    headers: noStore,
    body: {
      access_token: pair.accessToken,
      token_type: 'Bearer',
      expires_in: pair.expiresIn,
      refresh_token: pair.refreshToken,
      scope: pair.scopes.join(' '),
    },
  };
}

/**
 * "either HTTP Basic authentication or client_id and client_secret supplied in the form data body"
 * (docs/discord-api-notes.md §1.1). Basic credentials, when sent, are the ones that count.
 */
function clientAuthenticated(store: OAuth2Store, headers: IncomingHttpHeaders, form: URLSearchParams): boolean {
  const header = headers.authorization ?? '';
  let id = form.get('client_id');
  let secret = form.get('client_secret');
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const unescape = (s: string): string => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    id = unescape(decoded.slice(0, colon));
    secret = unescape(decoded.slice(colon + 1));
  }
  return id === store.applicationId && secret !== null && secret === store.clientSecret;
}

function form(ctx: RouteContext): URLSearchParams {
  return ctx.body instanceof URLSearchParams ? ctx.body : new URLSearchParams();
}

/**
 * `POST /oauth2/token` and `POST /oauth2/token/revoke` (docs/discord-api-notes.md §1.3): form bodies
 * only, so a JSON body reads as no fields at all and Discord answers that no grant type was given;
 * RFC 6749 errors (`invalid_client`, `invalid_grant`, …) rather than Discord's `{code, message}`.
 */
export function oauth2Routes(store: OAuth2Store): RouteDefinition[] {
  const base = { auth: 'none', global: false, body: 'form', bucket: 'oauth2', major: [] } as const;
  return [
    {
      ...base,
      method: 'POST',
      template: '/oauth2/token',
      handle: (ctx) => {
        const fields = form(ctx);
        const grantType = fields.get('grant_type');
        if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
          return oauthError(400, 'unsupported_grant_type', `Grant type ${grantType ?? 'None'} is not supported`);
        }
        if (!clientAuthenticated(store, ctx.headers, fields)) return oauthError(401, 'invalid_client');
        if (grantType === 'refresh_token') {
          const pair = store.refresh(fields.get('refresh_token') ?? '');
          return pair ? tokenResponse(pair) : oauthError(400, 'invalid_grant', 'Invalid "refresh_token" in request');
        }
        const code = store.takeCode(fields.get('code') ?? '');
        if (!code) return oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
        if (fields.get('redirect_uri') !== code.redirectUri) return oauthError(400, 'invalid_grant', 'Invalid "redirect_uri" in request.');
        if (code.codeChallenge !== null) {
          const verifier = fields.get('code_verifier') ?? '';
          if (!PKCE_VALUE.test(verifier)) return oauthError(400, 'invalid_request', 'Invalid "code_verifier"');
          if (pkceChallenge(verifier) !== code.codeChallenge) return oauthError(400, 'invalid_grant', 'Invalid "code_verifier"');
        }
        return tokenResponse(store.issue(code.userId, code.scopes));
      },
    },
    {
      ...base,
      method: 'POST',
      template: '/oauth2/token/revoke',
      handle: (ctx) => {
        const fields = form(ctx);
        if (!clientAuthenticated(store, ctx.headers, fields)) return oauthError(401, 'invalid_client');
        const value = fields.get('token');
        if (!value) return oauthError(400, 'invalid_request', 'Missing "token" in request');
        // RFC 7009 §2.2: an unknown token is answered like a revoked one.
        store.revoke(value);
        return { status: 200, headers: noStore, body: {} };
      },
    },
  ];
}

function pageText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Plays the user at the authorize page over HTTP, as a browser would: opens it, then answers its
 * form with `decision` (and the user to log in as); returns the redirect location.
 */
export async function answerAuthorizePage(authorizeUrl: string, fields: { decision: 'allow' | 'deny'; user_id?: string }): Promise<string> {
  const opened = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await opened.text();
  const location = opened.headers.get('location');
  // An invalid PKCE method is answered by redirecting at once, as an OAuth2 error.
  if (opened.status === 302 && location) return location;
  if (opened.status !== 200) throw new SandboxUsageError(`the authorize page answered ${opened.status}: ${pageText(html)}`);
  const request = requestIdFromAuthorizePage(html);
  if (!request) throw new SandboxUsageError('the authorize page carries no consent form');
  const answered = await fetch(new URL('/oauth2/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, ...fields }).toString(),
    redirect: 'manual',
  });
  const text = await answered.text();
  const next = answered.headers.get('location');
  if (answered.status !== 302 || !next) throw new SandboxUsageError(`the consent form answered ${answered.status}: ${pageText(text)}`);
  return next;
}
