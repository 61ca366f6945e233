import type { IncomingHttpHeaders } from 'node:http';
import type { UserGrant } from './oauth2-store';
import type { RateLimitRoute } from './types';

/**
 * Who may call a route: the bot (`Authorization: Bot <token>`), a user through an OAuth2 access
 * token (`Authorization: Bearer <token>`), either, or anyone (interaction callbacks, webhook-token
 * routes, the OAuth2 token endpoint, which authenticates the client itself).
 */
export type AuthMode = 'bot' | 'bearer' | 'bot-or-bearer' | 'none';

/** The authenticated caller of a request. */
export type Principal = { kind: 'bot' } | { kind: 'bearer'; grant: UserGrant; token: string } | { kind: 'none' };

export interface RouteContext {
  method: string;
  /** Path below `/api/v10`, still percent-encoded. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** `X-Audit-Log-Reason`, URL-decoded. */
  reason: string | null;
  principal: Principal;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDefinition {
  method: string;
  /** `/guilds/:g/members/:u/roles/:r`: `:name` segments capture one path segment. */
  template: string;
  auth: AuthMode;
  /**
   * How the body is read: JSON (the API's default; other content types are refused) or a form, for
   * the OAuth2 token endpoints, which accept only `application/x-www-form-urlencoded` (docs
   * docs/discord-api-notes.md §1.1). A form route gets a `URLSearchParams` body, empty when the
   * request was anything else, as Discord then finds no fields.
   */
  body?: 'json' | 'form';
  bucket: RateLimitRoute;
  /** Parameter names forming the rate limit's major parameter (Discord's docs, Rate Limits; docs/tech-facts.md §1). */
  major: readonly string[];
  /** Counted against the global limit; interaction endpoints are not (docs/tech-facts.md §1). */
  global: boolean;
  handle(ctx: RouteContext): RouteResult | Promise<RouteResult>;
}

export type RouteMatch =
  { kind: 'found'; route: RouteDefinition; params: Record<string, string> } | { kind: 'wrong-method'; template: string } | { kind: 'none' };

export function matchTemplate(template: string, path: string): Record<string, string> | null {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) {
      if (g === '') return null;
      params[w.slice(1)] = g;
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}

/** Literal segments win over parameters, so `/users/@me` is not read as `/users/:u`. */
export function matchRoute(routes: readonly RouteDefinition[], method: string, path: string): RouteMatch {
  let wrongMethod: string | null = null;
  let best: { route: RouteDefinition; params: Record<string, string>; literals: number } | null = null;
  for (const route of routes) {
    const params = matchTemplate(route.template, path);
    if (!params) continue;
    if (route.method !== method) {
      wrongMethod = route.template;
      continue;
    }
    const literals = route.template.split('/').filter((s) => !s.startsWith(':')).length;
    if (!best || literals > best.literals) best = { route, params, literals };
  }
  if (best) return { kind: 'found', route: best.route, params: best.params };
  return wrongMethod !== null ? { kind: 'wrong-method', template: wrongMethod } : { kind: 'none' };
}

export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
