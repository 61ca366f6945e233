import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../support/clock';
import type { Logger } from '../support/logger';
import { ApiErrors, DiscordApiError } from './api-error';
import type { FaultInjector } from './faults';
import type { HoldRegistry } from './holds';
import type { Principal, RouteContext, RouteDefinition, RouteResult } from './http-router';
import { matchRoute } from './http-router';
import type { OAuth2Store } from './oauth2-store';
import type { RateLimiter } from './rate-limiter';
import { bucketHash } from './rate-limiter';
import type { RequestLog } from './request-log';
import type { FaultSpec, RequestRecord } from './types';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** "supports 1-512 URL-encoded UTF-8 characters" (Discord's docs, Audit Log; docs/tech-facts.md §1). */
const MAX_REASON_LENGTH = 512;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new BodyTooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function stringify(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

/** 204 answers carry no content-type: @discordjs/rest JSON-parses whenever it sees one (docs/tech-facts.md §2). */
export function write(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

function decodeReason(raw: string | string[] | undefined): string | null {
  if (typeof raw !== 'string' || raw === '') return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function majorOf(route: RouteDefinition, params: Record<string, string>): string {
  return route.major.map((name) => params[name] ?? '').join('/') || 'global';
}

/** The canned answer of an injected fault, shaped like Discord's own (429s with their headers). */
function faultAnswer(fault: FaultSpec, route: RouteDefinition): RouteResult {
  if (fault.status === 429) {
    const seconds = fault.retryAfterSeconds ?? 1;
    const headers: Record<string, string> = { 'Retry-After': String(seconds) };
    if (fault.global) {
      headers['X-RateLimit-Global'] = 'true';
      headers['X-RateLimit-Scope'] = 'global';
    } else {
      headers['X-RateLimit-Scope'] = 'user';
      headers['X-RateLimit-Limit'] = '1';
      headers['X-RateLimit-Remaining'] = '0';
      headers['X-RateLimit-Reset-After'] = seconds.toFixed(3);
      headers['X-RateLimit-Bucket'] = bucketHash(route.bucket);
    }
    return {
      status: 429,
      headers,
      body: { message: fault.message ?? 'You are being rate limited.', retry_after: seconds, global: fault.global ?? false },
    };
  }
  if (fault.status >= 500)
    return { status: fault.status, body: { message: fault.message ?? `${fault.status}: Internal Server Error`, code: fault.code ?? 0 } };
  return { status: fault.status, body: { message: fault.message ?? `${fault.status}: Sandbox fault`, code: fault.code ?? 0 } };
}

export interface ApiHandlerDeps {
  routes: readonly RouteDefinition[];
  botToken: string;
  oauth: OAuth2Store;
  limiter: RateLimiter;
  log: RequestLog;
  faults: FaultInjector;
  /** Requests held on their way (a test's network delay or lost answer); none when absent. */
  holds?: HoldRegistry;
  clock: Clock;
  logger: Logger;
}

/** `Authorization: Bot …` or `Bearer …`; null for a header that names no live credential. */
function principalOf(header: string | undefined, deps: ApiHandlerDeps): Principal | null {
  if (header === undefined || header === '') return { kind: 'none' };
  if (header.startsWith('Bot ')) return header === `Bot ${deps.botToken}` ? { kind: 'bot' } : null;
  if (header.startsWith('Bearer ')) {
    const token = header.slice('Bearer '.length);
    const grant = deps.oauth.grantOf(token);
    return grant ? { kind: 'bearer', grant, token } : null;
  }
  return null;
}

/** The caller a route admits, or null for a 401; routes open to anyone ignore the header (Basic client auth, …). */
function admitted(route: RouteDefinition, principal: Principal | null): Principal | null {
  if (route.auth === 'none') return principal ?? { kind: 'none' };
  if (principal === null) return null;
  const ok =
    route.auth === 'bot' ? principal.kind === 'bot' : route.auth === 'bearer' ? principal.kind === 'bearer' : principal.kind !== 'none';
  return ok ? principal : null;
}

/** The key rate limits count by: the token's owner (Discord's docs, Rate Limits; docs/tech-facts.md §1, "individuals … by authentication"). */
function callerOf(principal: Principal): string {
  return principal.kind === 'bearer' ? `user:${principal.grant.userId}` : principal.kind;
}

function parseBody(route: RouteDefinition, req: IncomingMessage, raw: Buffer): unknown {
  const type = req.headers['content-type'] ?? '';
  if (route.body === 'form') {
    return type.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(raw.toString('utf8')) : new URLSearchParams();
  }
  if (raw.length === 0) return undefined;
  if (!type.includes('application/json')) {
    throw ApiErrors.invalidFormBody('_', 'CONTENT_TYPE_INVALID', 'The Discord sandbox accepts application/json bodies only.');
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw ApiErrors.invalidJson();
  }
}

/**
 * The REST side of the stand-in: authentication, faults, the global and per-route limits, the body,
 * the route, and the request log, in the order Discord applies them as far as they can be observed.
 */
export function createApiHandler(deps: ApiHandlerDeps) {
  const { routes, limiter, log, faults, clock, logger } = deps;

  return async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchRoute(routes, method, path);
    const reason = decodeReason(req.headers['x-audit-log-reason']);
    let result: RouteResult;
    let scope: string | undefined;
    // Bucket headers ride on error answers too, as on Discord.
    let rateHeaders: Record<string, string> = {};
    try {
      const raw = await readBody(req);
      if (match.kind === 'none') throw ApiErrors.notFound();
      if (match.kind === 'wrong-method') throw ApiErrors.methodNotAllowed();
      const { route, params } = match;
      const principal = admitted(route, principalOf(req.headers.authorization, deps));
      if (principal === null) throw ApiErrors.unauthorized();
      if (reason !== null && [...reason].length > MAX_REASON_LENGTH) {
        throw ApiErrors.invalidFormBody('reason', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_REASON_LENGTH} or fewer in length.`);
      }
      const fault = faults.take(method, route.template, route.bucket);
      if (fault) {
        result = faultAnswer(fault, route);
        scope = result.headers?.['X-RateLimit-Scope'];
      } else {
        const caller = callerOf(principal);
        const globalVerdict = route.global && principal.kind !== 'none' ? limiter.takeGlobal(caller) : { ok: true as const, headers: {} };
        const verdict = globalVerdict.ok ? limiter.take(route.bucket, majorOf(route, params), caller) : globalVerdict;
        if (!verdict.ok) {
          scope = verdict.headers['X-RateLimit-Scope'];
          result = {
            status: 429,
            headers: verdict.headers,
            body: {
              message: 'You are being rate limited.',
              retry_after: Number((verdict.retryAfterMs / 1000).toFixed(3)),
              global: !globalVerdict.ok,
            },
          };
        } else {
          rateHeaders = verdict.headers;
          const body = parseBody(route, req, raw);
          const ctx: RouteContext = { method, path, params, query: url.searchParams, headers: req.headers, body, reason, principal };
          await deps.holds?.take(method, route.template, route.bucket, 'before');
          const answer = await route.handle(ctx);
          result = { ...answer, headers: { ...rateHeaders, ...(answer.headers ?? {}) } };
          await deps.holds?.take(method, route.template, route.bucket, 'after');
        }
      }
    } catch (error) {
      if (error instanceof DiscordApiError) {
        result = { status: error.status, body: error.body(), headers: rateHeaders };
      } else if (error instanceof BodyTooLarge) {
        result = { status: 413, body: { message: 'Request entity too large', code: 40005 } };
      } else {
        logger.error({ err: error, method, path }, 'discord sandbox route failed');
        result = { status: 500, body: { message: '500: Internal Server Error', code: 0 } };
      }
    }
    write(res, result.status, result.body, result.headers ?? {});
    const record: RequestRecord = {
      at: clock.now(),
      method,
      route: `${method} ${match.kind === 'found' ? match.route.template : match.kind === 'wrong-method' ? match.template : path}`,
      path,
      status: result.status,
    };
    if (reason !== null) record.reason = reason;
    log.add(record, scope);
    logger.debug({ method, route: record.route, status: result.status }, 'discord sandbox request');
  };
}
