import type { APIRequest, RateLimitData, RESTOptions, ResponseLike } from '@discordjs/rest';
import { DefaultRestOptions, REST } from '@discordjs/rest';
import type { Logger } from '../../../shared/logger';
import { sendingAgainAfterLostConnections } from './connection-resets';
import type { RequestScheduler } from './request-scheduler';

/** One answered request, as @discordjs/rest's `response` event reports it. */
export interface RestCallEvent {
  method: string;
  /** The bucket route, ids replaced by `:id`: `/guilds/:id/members/:id/roles/:id`. */
  route: string;
  status: number;
  retries: number;
}

/** A wait on a rate limit, from @discordjs/rest's `rateLimited` event. */
export interface RestRateLimitEvent {
  method: string;
  route: string;
  global: boolean;
  scope: string;
  limit: number;
  /** How long the request will wait, in ms. */
  waitMs: number;
}

export interface RestStats {
  requests: number;
  /** Requests per `METHOD /bucket/route`. */
  byRoute: Record<string, number>;
  /** 429 answers received (each is retried by @discordjs/rest after `Retry-After`). */
  tooManyRequests: number;
  rateLimitWaits: number;
  rateLimitWaitMs: number;
}

export interface CreateRestOptions {
  /** DISCORD_API_BASE_URL: `https://discord.com/api` in production, the sandbox's `apiBaseUrl` in tests. */
  apiBaseUrl: string;
  token: string;
  logger?: Logger;
  onResponse?: (event: RestCallEvent) => void;
  onRateLimited?: (event: RestRateLimitEvent) => void;
  /** Other @discordjs/rest options (timeouts, retries, `globalRequestsPerSecond`). */
  rest?: Partial<Omit<RESTOptions, 'api'>>;
  /** Paces every request on its way out and learns each bucket from its answer (src/edges/outbound/discord/request-scheduler.ts). */
  scheduler?: Pick<RequestScheduler, 'makeRequest'>;
}

export interface RestHandle {
  rest: REST;
  stats(): RestStats;
  resetStats(): void;
  /**
   * Ends @discordjs/rest's two sweep timers (hourly and four-hourly). They do not keep the process
   * running, but while they exist the client and everything it reaches stay in memory: a program
   * that stops Tierlink and goes on (a test run, an embedding host) would keep each stopped client.
   */
  close(): void;
}

function emptyStats(): RestStats {
  return { requests: 0, byRoute: {}, tooManyRequests: 0, rateLimitWaits: 0, rateLimitWaitMs: 0 };
}

/**
 * Builds the @discordjs/rest client every Discord call of Tierlink goes through, and counts what it
 * does. @discordjs/rest emits `response` only when someone listens and `rateLimited` whenever a
 * request waits on a bucket (docs/tech-facts.md §2 "Events"); both feed the stats and the hooks.
 */
export function createRest(options: CreateRestOptions): RestHandle {
  const { scheduler } = options;
  const version = options.rest?.version ?? DefaultRestOptions.version;
  // `${api}/v${version}${route}` (docs/tech-facts.md §2): the route is what follows the prefix.
  const prefix = `${new URL(options.apiBaseUrl).pathname.replace(/\/$/, '')}/v${version}`;
  const pathOf = (url: string) => {
    const pathname = new URL(url).pathname;
    return pathname.startsWith(prefix) ? pathname.slice(prefix.length) : pathname;
  };
  const makeRequest = sendingAgainAfterLostConnections(options.rest?.makeRequest ?? DefaultRestOptions.makeRequest);
  const rest = new REST({
    ...options.rest,
    api: options.apiBaseUrl,
    makeRequest: scheduler ? scheduler.makeRequest(makeRequest, pathOf) : makeRequest,
  }).setToken(options.token);
  let stats = emptyStats();

  rest.on('response', (request: APIRequest, response: ResponseLike) => {
    const event: RestCallEvent = {
      method: request.method.toUpperCase(),
      route: request.route,
      status: response.status,
      retries: request.retries,
    };
    const key = `${event.method} ${event.route}`;
    stats.requests += 1;
    stats.byRoute[key] = (stats.byRoute[key] ?? 0) + 1;
    if (event.status === 429) stats.tooManyRequests += 1;
    options.onResponse?.(event);
  });

  rest.on('rateLimited', (data: RateLimitData) => {
    const event: RestRateLimitEvent = {
      method: data.method.toUpperCase(),
      route: data.route,
      global: data.global,
      scope: data.scope,
      limit: data.limit,
      waitMs: Math.max(0, data.timeToReset),
    };
    stats.rateLimitWaits += 1;
    stats.rateLimitWaitMs += event.waitMs;
    options.logger?.debug(
      { route: event.route, method: event.method, waitMs: event.waitMs, global: event.global },
      'discord rate limit wait',
    );
    options.onRateLimited?.(event);
  });

  return {
    rest,
    stats: () => ({ ...stats, byRoute: { ...stats.byRoute } }),
    resetStats: () => {
      stats = emptyStats();
    },
    close: () => {
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    },
  };
}
