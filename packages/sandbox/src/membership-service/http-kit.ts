import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A request after the body was read; `params` come from the matched route pattern. */
export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  params: Readonly<Record<string, string>>;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export type Handler = (req: SandboxRequest) => SandboxResponse | Promise<SandboxResponse>;

export interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
}

/** `/api/oauth2/v2/members/:id` → a route; a `:name` segment matches one path segment. */
export function route(method: string, path: string, handler: Handler): Route {
  const keys: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        keys.push(segment.slice(1));
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { method, pattern: new RegExp(`^${source}$`), keys, handler };
}

export type RouteMatch = { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method' } | { kind: 'none' };

export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  let pathMatched = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method) continue;
    const params: Record<string, string> = {};
    r.keys.forEach((key, i) => {
      const raw = m[i + 1] ?? '';
      try {
        params[key] = decodeURIComponent(raw);
      } catch {
        params[key] = raw;
      }
    });
    return { kind: 'found', route: r, params };
  }
  return pathMatched ? { kind: 'method' } : { kind: 'none' };
}

const JSON_HEADERS = { 'content-type': 'application/vnd.api+json; charset=utf-8' };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** Plain `application/json`, as the token endpoint and the control API answer. */
export function plainJson(status: number, body: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

export function html(status: number, body: string): SandboxResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body };
}

export function redirect(location: string): SandboxResponse {
  return { status: 302, headers: { location }, body: '' };
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function errorEntry(status: number, detail: string): Record<string, unknown> {
  const title = TITLES[status] ?? 'Error';
  return { code: status, code_name: title.replace(/ /g, ''), detail, id: randomUUID(), status: String(status), title };
}

/** Every error carries an `errors` array (spec: Errors; clients read it to decide to refresh). */
export function apiError(
  status: number,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): SandboxResponse {
  return json(status, { errors: [errorEntry(status, detail)], ...extra }, headers);
}

/** Reads `a=1&b=2` bodies; callers check the content type first. */
export function parseForm(body: Buffer): URLSearchParams {
  return new URLSearchParams(body.toString('utf8'));
}

/** The media type of a request without parameters, lower-cased; '' when absent. */
export function mediaType(headers: IncomingHttpHeaders): string {
  const value = headers['content-type'] ?? '';
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

/** Spec: Errors, 406 "A format other than JSON was requested". A missing Accept accepts anything. */
export function acceptsJson(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept;
  if (!accept) return true;
  return accept.split(',').some((range) => {
    const type = (range.split(';')[0] ?? '').trim().toLowerCase();
    return type === '*/*' || type === 'application/*' || type === 'application/json' || type === 'application/vnd.api+json';
  });
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
