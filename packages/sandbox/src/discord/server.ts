import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../support/clock';
import { systemClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { silentLogger } from '../support/logger';
import { ApiErrors, DiscordApiError } from './api-error';
import { CommandStore } from './commands';
import { controlRoutes, handleControl } from './control-api';
import { Gateway } from './gateway';
import type { GenerateGuildOptions, GeneratedGuild } from './generator';
import { generateGuild } from './generator';
import type { RouteContext, RouteDefinition, RouteResult } from './http-router';
import { matchRoute } from './http-router';
import type { WaitForResponseOptions } from './interactions';
import { InteractionStore } from './interactions';
import type { Window } from './rate-limiter';
import { RateLimiter, bucketHash } from './rate-limiter';
import { RequestLog } from './request-log';
import type { CoreContext } from './rest-routes';
import { restRoutes } from './rest-routes';
import { FaultInjector } from './faults';
import { Waiters } from './waiters';
import { compareIds, createSnowflakeFactory } from './snowflakes';
import type { AddMemberOptions, CreateGuildOptions, CreateRoleOptions, CreatedGuild, UpdateRoleOptions } from './state';
import { DiscordState, SandboxUsageError } from './state';
import type {
  FaultSpec,
  GuildSnapshot,
  InjectCommandOptions,
  InjectedInteraction,
  InteractionResponseRecord,
  MemberSnapshot,
  RateLimitRoute,
  RateLimitSetting,
  RequestRecord,
  RoleEvent,
  RoleSnapshot,
  StoredCommand,
} from './types';

export interface DiscordSandboxOptions {
  /** 0 (a free port) when absent. */
  port?: number;
  logger?: Logger;
  /** Time of timestamps, interaction deadlines (3 s) and token expiry (15 min). */
  clock?: Clock;
  /**
   * Time of the rate-limit windows. Real time by default even with a manual `clock`, because the
   * client really sleeps for `Retry-After`; a frozen window would never reopen.
   */
  rateLimitClock?: Clock;
  botToken?: string;
  applicationId?: string;
  /** The bot user's name, also the name of its managed role; `Tierlink` when absent. */
  botUsername?: string;
  /** Whether the app has the privileged Server Members Intent switched on; true when absent. */
  membersIntentEnabled?: boolean;
  heartbeatIntervalMs?: number;
  rateLimits?: { global?: Window; routes?: Partial<Record<RateLimitRoute, Window>> };
}

export interface WaitForMemberRoleOptions {
  present: boolean;
  timeoutMs?: number;
}

export interface DiscordSandbox {
  /** What Tierlink gets as DISCORD_API_BASE_URL: `http://127.0.0.1:PORT/api` (requests land on `/api/v10/...`). */
  readonly apiBaseUrl: string;
  /** `http://127.0.0.1:PORT`; the control API lives under `/__sandbox`. */
  readonly baseUrl: string;
  readonly gatewayUrl: string;
  readonly port: number;
  readonly botToken: string;
  readonly applicationId: string;
  readonly botUserId: string;
  close(): Promise<void>;

  createGuild(options?: CreateGuildOptions): CreatedGuild;
  guilds(): GuildSnapshot[];
  guild(guildId: string): GuildSnapshot;
  createRole(guildId: string, options: CreateRoleOptions): RoleSnapshot;
  updateRole(guildId: string, roleId: string, patch: UpdateRoleOptions): RoleSnapshot;
  deleteRole(guildId: string, roleId: string): void;
  addMember(guildId: string, options?: AddMemberOptions): MemberSnapshot;
  removeMember(guildId: string, userId: string): void;
  members(guildId: string, options?: { limit?: number; after?: string }): MemberSnapshot[];
  /** A moderator's change of a member's whole role list, logged with `via: 'hand'`. */
  setMemberRolesByHand(guildId: string, userId: string, roleIds: string[]): void;
  memberRoles(guildId: string, userId: string): string[];
  generateGuild(options: GenerateGuildOptions): GeneratedGuild;

  roleEvents(): RoleEvent[];
  clearRoleEvents(): void;
  /** Resolves as soon as the member has (or lacks) the role; driven by state changes, no polling. */
  waitForMemberRole(guildId: string, userId: string, roleId: string, options: WaitForMemberRoleOptions): Promise<void>;

  requests(filter?: { route?: string; method?: string }): RequestRecord[];
  resetRequests(): void;
  /** 401, 403 and 429 answers so far (Discord's invalid-request counter). */
  invalidRequestCount(): number;
  setMembersIntentEnabled(enabled: boolean): void;
  setRateLimit(setting: RateLimitSetting): void;
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;

  injectCommand(options: InjectCommandOptions): InjectedInteraction;
  interactionResponses(interactionId: string): InteractionResponseRecord[];
  waitForInteractionResponse(interactionId: string, options?: WaitForResponseOptions): Promise<InteractionResponseRecord>;
  waitForConnection(options?: { timeoutMs?: number }): Promise<void>;
  /** Close codes the gateway sent to clients (4004 authentication failed, 4014 disallowed intents, …). */
  gatewayCloses(): Array<{ code: number; reason: string }>;
  /** Closes gateway sockets with `code` (4000 when absent), leaving sessions resumable. */
  disconnectGateway(code?: number): void;

  commands(guildId?: string): StoredCommand[];
  /** Bulk-overwrite PUTs of commands received for the global scope or a guild. */
  commandPutCount(guildId?: string): number;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const API_PREFIX = '/api/v10';
const CONTROL_PREFIX = '/__sandbox';
/** "supports 1-512 URL-encoded UTF-8 characters" (docs `resources/audit-log.mdx`, tech-facts §1). */
const MAX_REASON_LENGTH = 512;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
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

/** 204 answers carry no content-type: @discordjs/rest JSON-parses whenever it sees one (tech-facts §2). */
function write(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
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

/**
 * Starts the Discord stand-in: REST under `/api/v10`, the gateway on the same port (WebSocket
 * upgrade), and the control API under `/__sandbox`. Strict by design: real status codes, error codes,
 * role hierarchy and rate-limit headers (CONTRIBUTING.md "The sandbox is strict").
 */
export async function createDiscordSandbox(options: DiscordSandboxOptions = {}): Promise<DiscordSandbox> {
  const clock = options.clock ?? systemClock;
  const rateClock = options.rateLimitClock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const nextId = createSnowflakeFactory(clock);
  const applicationId = options.applicationId ?? nextId();
  const botToken = options.botToken ?? `sandbox.${randomBytes(18).toString('base64url')}`;
  const state = new DiscordState(clock, nextId, {
    // Bots created today share their application's id.
    botUserId: applicationId,
    botUsername: options.botUsername ?? 'Tierlink',
    membersIntentEnabled: options.membersIntentEnabled ?? true,
  });
  let port = 0;
  const core: CoreContext = {
    state,
    clock,
    applicationId,
    applicationName: options.botUsername ?? 'Tierlink',
    gatewayUrl: () => `ws://127.0.0.1:${port}`,
  };
  const limiter = new RateLimiter(() => rateClock.now().getTime(), options.rateLimits);
  const log = new RequestLog();
  const faults = new FaultInjector();
  const gateway = new Gateway({ core, botToken, logger, heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250, nextId });
  const commandStore = new CommandStore(core, nextId);
  const interactions = new InteractionStore(
    core,
    nextId,
    (event, data) => gateway.dispatch(event, data),
    (g, name) => commandStore.idFor(g, name),
  );
  const waiters = new Waiters();
  const routes: RouteDefinition[] = [...restRoutes(core), ...interactions.routes(), ...commandStore.routes()];

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname.slice(API_PREFIX.length) || '/';
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
      if (route.auth && req.headers.authorization !== `Bot ${botToken}`) throw ApiErrors.unauthorized();
      if (reason !== null && [...reason].length > MAX_REASON_LENGTH) {
        throw ApiErrors.invalidFormBody('reason', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_REASON_LENGTH} or fewer in length.`);
      }
      const fault = faults.take(method, route.template, route.bucket);
      if (fault) {
        result = faultAnswer(fault, route);
        scope = result.headers?.['X-RateLimit-Scope'];
      } else {
        const globalVerdict = route.global && route.auth ? limiter.takeGlobal() : { ok: true as const, headers: {} };
        const verdict = globalVerdict.ok ? limiter.take(route.bucket, majorOf(route, params)) : globalVerdict;
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
          let body: unknown;
          if (raw.length > 0) {
            const type = req.headers['content-type'] ?? '';
            if (!type.includes('application/json')) {
              throw ApiErrors.invalidFormBody('_', 'CONTENT_TYPE_INVALID', 'The Discord sandbox accepts application/json bodies only.');
            }
            try {
              body = JSON.parse(raw.toString('utf8')) as unknown;
            } catch {
              throw ApiErrors.invalidJson();
            }
          }
          const ctx: RouteContext = { method, path, params, query: url.searchParams, headers: req.headers, body, reason };
          const answer = await route.handle(ctx);
          result = { ...answer, headers: { ...rateHeaders, ...(answer.headers ?? {}) } };
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
  }

  async function handleControlRequest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    } catch {
      write(res, 400, { error: 'invalid JSON' }, {});
      return;
    }
    const path = url.pathname.slice(CONTROL_PREFIX.length) || '/';
    const answer = await handleControl(control, (req.method ?? 'GET').toUpperCase(), path, url.searchParams, body);
    write(res, answer.status, answer.body, {});
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const handler = url.pathname.startsWith(`${API_PREFIX}/`)
      ? handleApi(req, res, url)
      : url.pathname.startsWith(`${CONTROL_PREFIX}/`)
        ? handleControlRequest(req, res, url)
        : readBody(req).then(() => write(res, 404, { message: '404: Not Found', code: 0 }, {}));
    handler.catch((error: unknown) => {
      logger.error({ err: error }, 'discord sandbox request failed');
      if (!res.headersSent) write(res, 500, { message: '500: Internal Server Error', code: 0 }, {});
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  const sandbox: DiscordSandbox = {
    apiBaseUrl: `http://127.0.0.1:${port}/api`,
    baseUrl: `http://127.0.0.1:${port}`,
    gatewayUrl: `ws://127.0.0.1:${port}`,
    port,
    botToken,
    applicationId,
    botUserId: state.botUser.id,

    async close() {
      interactions.close();
      waiters.cancelAll();
      await gateway.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },

    createGuild: (o) => state.createGuild(o),
    guilds: () => [...state.guilds.keys()].map((id) => state.guildSnapshot(id)),
    guild: (guildId) => state.guildSnapshot(guildId),
    createRole: (guildId, o) => state.createRole(guildId, o),
    updateRole: (guildId, roleId, patch) => state.updateRole(guildId, roleId, patch),
    deleteRole: (guildId, roleId) => state.deleteRole(guildId, roleId),
    addMember: (guildId, o) => state.addMember(guildId, o),
    removeMember: (guildId, userId) => state.removeMember(guildId, userId),
    members(guildId, o = {}) {
      const guild = state.requireGuild(guildId);
      const after = o.after ?? '0';
      return state
        .sortedMemberIds(guild)
        .filter((id) => compareIds(id, after) > 0)
        .slice(0, o.limit ?? Number.POSITIVE_INFINITY)
        .map((id) => state.memberSnapshot(guildId, id));
    },
    setMemberRolesByHand(guildId, userId, roleIds) {
      if (roleIds.includes(guildId)) throw new SandboxUsageError('@everyone is implicit and never listed in a member');
      state.setMemberRoles(guildId, userId, roleIds, 'hand', null);
    },
    memberRoles: (guildId, userId) => [...state.requireMember(guildId, userId).roleIds],
    generateGuild: (o) => generateGuild(state, clock, o),

    roleEvents: () => state.roleEvents(),
    clearRoleEvents: () => state.clearRoleEvents(),
    waitForMemberRole(guildId, userId, roleId, o) {
      const matches = (): boolean => (state.guild(guildId)?.members.get(userId)?.roleIds.includes(roleId) ?? false) === o.present;
      if (matches()) return Promise.resolve();
      const timeoutMs = o.timeoutMs ?? 5_000;
      const what = `member ${userId} did not ${o.present ? 'get' : 'lose'} role ${roleId} within ${timeoutMs} ms`;
      return waiters.wait<void>(timeoutMs, what, (resolve) =>
        state.subscribe((event) => {
          if (event.type !== 'member-remove' && event.guildId === guildId && matches()) resolve();
        }),
      );
    },

    requests: (filter) => log.list(filter),
    resetRequests: () => log.reset(),
    invalidRequestCount: () => log.invalidCount(),
    setMembersIntentEnabled(enabled) {
      state.membersIntentEnabled = enabled;
    },
    setRateLimit: (setting) => limiter.set(setting),
    injectFault: (spec) => faults.inject(spec),
    clearFaults: () => faults.clear(),

    injectCommand: (o) => interactions.inject(o),
    interactionResponses: (id) => interactions.responses(id),
    waitForInteractionResponse: (id, o) => interactions.waitForResponse(id, o),
    waitForConnection: (o) => gateway.waitForConnection(o?.timeoutMs),
    gatewayCloses: () => gateway.closeCodes(),
    disconnectGateway: (code) => gateway.disconnectAll(code),

    commands: (guildId) => commandStore.list(guildId),
    commandPutCount: (guildId) => commandStore.putCount(guildId),
  };
  const control = controlRoutes(sandbox);
  return sandbox;
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
