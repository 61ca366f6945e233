import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../support/clock';
import { systemClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { silentLogger } from '../support/logger';
import { createApiHandler, readBody, write } from './api-handler';
import { CommandStore } from './commands';
import { controlRoutes, handleControl } from './control-api';
import type { GatewaySessionInfo } from './gateway';
import { Gateway } from './gateway';
import type { GatewaySettings, IdentifyRecord } from './gateway-sharding';
import type { GenerateGuildOptions, GeneratedGuild } from './generator';
import { generateGuild } from './generator';
import { createSigningKey } from './ed25519';
import type { RouteDefinition } from './http-router';
import type { WaitForResponseOptions } from './interactions';
import { INITIAL_RESPONSE_MS, InteractionStore } from './interactions';
import { InteractionsEndpoint } from './http-interactions';
import type { Window } from './rate-limiter';
import { RateLimiter } from './rate-limiter';
import { answerAuthorizePage, authorizePage, oauth2Routes } from './oauth2-routes';
import type { OAuth2TokenPair } from './oauth2-store';
import { OAuth2Store } from './oauth2-store';
import { RequestLog } from './request-log';
import type { CoreContext } from './rest-routes';
import { restRoutes } from './rest-routes';
import { userRoutes } from './user-routes';
import { guildJoinRoutes } from './guild-join';
import type { WaitForMessageOptions } from './messages';
import { MessageStore } from './messages';
import { FaultInjector } from './faults';
import { type Hold, type HoldSpec, HoldRegistry } from './holds';
import { Waiters } from './waiters';
import { compareIds, createSnowflakeFactory } from './snowflakes';
import type {
  AddMemberOptions,
  CreateChannelOptions,
  CreateGuildOptions,
  CreateRoleOptions,
  CreatedGuild,
  UpdateChannelOptions,
  UpdateRoleOptions,
} from './state';
import { DiscordState, SandboxUsageError } from './state';
import type {
  ChannelSnapshot,
  FaultSpec,
  GuildSnapshot,
  InjectCommandOptions,
  PressButtonOptions,
  InjectedInteraction,
  InteractionDelivery,
  InteractionResponseRecord,
  MemberSnapshot,
  PostedMessage,
  RateLimitHit,
  RateLimitRoute,
  RateLimitSetting,
  RequestRecord,
  RoleEvent,
  RoleSnapshot,
  StoredCommand,
  UserSnapshot,
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
  /** Whether anyone may add the bot (Developer Portal → Bot → Public Bot); true when absent, as for a new application. */
  botPublic?: boolean;
  heartbeatIntervalMs?: number;
  /**
   * Sharding: the recommended `shards` of `GET /gateway/bot`, `max_concurrency`, the identify pacing
   * (5 s per bucket; lower it for tests that start several sessions), the guilds per shard before
   * 4011, the session start limit. The identify pacing runs on `rateLimitClock`.
   */
  gateway?: Partial<GatewaySettings>;
  /**
   * How long the stand-in waits, in real time, for an Interactions Endpoint URL to answer: Discord's
   * 3 s by default. Answers later than 3 s by `clock` fail too.
   */
  interactionTimeoutMs?: number;
  /**
   * The rate limits, Discord's real ones by default (`DISCORD_RATE_LIMITS`: global 50 per second,
   * member-role 10 per 10 s per guild, messages 5 per 5 s per channel). Limits above those need
   * {@link raisedLimits}.
   */
  rateLimits?: { global?: Window; routes?: Partial<Record<RateLimitRoute, Window>> };
  /**
   * Why this stand-in's limits go above Discord's real ones (required when `rateLimits` or a later
   * `setRateLimit` does): a test whose claim is not about the limits, a benchmark of Tierlink alone.
   */
  raisedLimits?: string;
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
  /** `http://127.0.0.1:PORT`, what DISCORD_WEB_BASE_URL points at: the authorize page is `{web}/oauth2/authorize`. */
  readonly webBaseUrl: string;
  /** The application's Ed25519 public key in hex, what DISCORD_PUBLIC_KEY holds (`verify_key` of `/applications/@me`). */
  readonly publicKey: string;
  /** The application's OAuth2 client secret, what DISCORD_CLIENT_SECRET holds; the client id is {@link applicationId}. */
  readonly clientSecret: string;
  close(): Promise<void>;

  createGuild(options?: CreateGuildOptions): CreatedGuild;
  /** Changes a server's language (`preferred_locale`), dispatching GUILD_UPDATE. */
  setPreferredLocale(guildId: string, locale: string): void;
  guilds(): GuildSnapshot[];
  guild(guildId: string): GuildSnapshot;
  createRole(guildId: string, options: CreateRoleOptions): RoleSnapshot;
  updateRole(guildId: string, roleId: string, patch: UpdateRoleOptions): RoleSnapshot;
  deleteRole(guildId: string, roleId: string): void;
  addMember(guildId: string, options?: AddMemberOptions): MemberSnapshot;
  removeMember(guildId: string, userId: string): void;
  /** Turns Membership Screening on or off for later joiners (they are added `pending`); GUILD_UPDATE. */
  setScreening(guildId: string, on: boolean): void;
  /** The owner hands the server to another member; GUILD_UPDATE. */
  transferOwnership(guildId: string, userId: string): void;
  /** A pending member accepts the server's rules: `pending` false, announced by GUILD_MEMBER_UPDATE. */
  completeScreening(guildId: string, userId: string): void;
  members(guildId: string, options?: { limit?: number; after?: string }): MemberSnapshot[];
  /** Bans a user, removing them from the guild if they are in it; Add Guild Member then answers 40007. */
  banUser(guildId: string, userId: string, options?: { reason?: string }): void;
  unbanUser(guildId: string, userId: string): void;
  bans(guildId: string): Array<{ userId: string; reason: string | null }>;
  /** The member cap Add Guild Member enforces with 30019 (`max_members`). */
  setMaxMembers(guildId: string, maxMembers: number): void;
  /** A channel (text by default) with its overwrites; every guild starts with `#general` ({@link GuildSnapshot.channelId}). */
  createChannel(guildId: string, options: CreateChannelOptions): ChannelSnapshot;
  updateChannel(channelId: string, patch: UpdateChannelOptions): ChannelSnapshot;
  deleteChannel(channelId: string): void;
  /** Messages the bot posted in the channel, oldest first. */
  messages(channelId: string): PostedMessage[];
  /** The bot's direct messages to the user, oldest first. */
  directMessages(userId: string): PostedMessage[];
  /** Closes (or opens) the user's DMs to the bot: a DM is then answered 403 50007 "Cannot send messages to this user". */
  setDirectMessagesClosed(userId: string, closed: boolean): void;
  /** Resolves with the first message in the channel `where` accepts (any when absent), posted before or after the call. */
  waitForMessage(channelId: string, options?: WaitForMessageOptions): Promise<PostedMessage>;
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
  /** 429 answers so far, per route and scope; `resetRequests` does not clear them. */
  rateLimitHits(): RateLimitHit[];
  setMembersIntentEnabled(enabled: boolean): void;
  setRateLimit(setting: RateLimitSetting): void;
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;
  /**
   * Holds matching requests on their way: `point: 'after'` (the default) applies the change and
   * withholds the answer until released, as when the network loses Discord's answer; `before` holds
   * the request before anything is applied. Answers already held go on when released.
   */
  holdRequests(spec: HoldSpec): Hold;
  /** Whether the application is public (Developer Portal → Bot → Public Bot): `bot_public` of `GET /applications/@me`. */
  setBotPublic(isPublic: boolean): void;

  /**
   * Delivers a command (or, with `focused`, an autocomplete) the way the application receives
   * interactions: as INTERACTION_CREATE to the gateway session(s) of the guild's shard, or, while an
   * Interactions Endpoint URL is set, only as a signed POST to it. Returns at once; the answer is read
   * with {@link waitForInteractionResponse} and {@link interactionDelivery}.
   */
  injectCommand(options: InjectCommandOptions): InjectedInteraction;
  /**
   * A member presses a button on a message an interaction put up (a message component interaction),
   * delivered as {@link injectCommand} delivers commands. Only a button that is on the message, and,
   * on an ephemeral message, only by the user it was sent to, as in Discord.
   */
  pressButton(options: PressButtonOptions): InjectedInteraction;
  /** How the interaction was delivered and whether it was answered in time (HTTP mode: why it failed). */
  interactionDelivery(interactionId: string): InteractionDelivery;
  /**
   * Sets the application's Interactions Endpoint URL after Discord's checks (a signed PING answered
   * `200 {"type":1}` as JSON, a bad signature answered 401); rejects with the reason otherwise and
   * keeps the previous setting. From then on interactions go there and no longer to the gateway.
   * null removes the URL (back to the gateway).
   */
  setInteractionsEndpoint(url: string | null): Promise<void>;
  interactionsEndpointUrl(): string | null;
  /** Discord's routine check of the endpoint (a request with a bad signature, …); a failing URL is removed. True when it stays. */
  checkInteractionsEndpoint(): Promise<boolean>;
  interactionResponses(interactionId: string): InteractionResponseRecord[];
  waitForInteractionResponse(interactionId: string, options?: WaitForResponseOptions): Promise<InteractionResponseRecord>;
  /** Resolves once `sessions` (1 when absent) gateway sessions are identified and connected. */
  waitForConnection(options?: { timeoutMs?: number; sessions?: number }): Promise<void>;
  /** Changes the sharding settings (see {@link DiscordSandboxOptions.gateway}) for what follows. */
  setGatewayOptions(settings: Partial<GatewaySettings>): void;
  /** Identified sessions, with their shard and the guilds it holds. */
  gatewaySessions(): GatewaySessionInfo[];
  /** Every IDENTIFY with a valid token, and how it was answered (ready, op 9 for pacing, 4010, 4011). */
  gatewayIdentifies(): IdentifyRecord[];
  /** Close codes the gateway sent to clients (4004 authentication failed, 4014 disallowed intents, …). */
  gatewayCloses(): Array<{ code: number; reason: string }>;
  /** Closes gateway sockets with `code` (4000 when absent), leaving sessions resumable. */
  disconnectGateway(code?: number): void;
  /** A gateway outage: `false` drops every socket and refuses new ones (503) until `true`; REST keeps answering. */
  setGatewayAvailable(available: boolean): void;

  // ---- OAuth2 (docs/discord-api-notes.md §1) ----------------------------------------------------
  /**
   * What the Developer Portal's OAuth2 page holds: the client secret (a fresh random one by default)
   * and the redirect URIs (none by default), which `redirect_uri` must equal exactly.
   */
  setOAuth2Application(settings: { clientSecret?: string; redirectUris?: string[] }): void;
  registerRedirectUri(uri: string): void;
  /** The OAuth2 settings as they stand: the client id is the application id. */
  oauth2Application(): { clientId: string; clientSecret: string; redirectUris: string[] };
  /**
   * A Discord user who is in no guild yet (an OAuth2 sign-in, a join); `addMember` creates users too.
   * `nitro`: the user may be in 200 servers instead of 100 (Add Guild Member answers 30001 past it).
   */
  createUser(options?: { userId?: string; username?: string; globalName?: string | null; nitro?: boolean; locale?: string }): UserSnapshot;
  /**
   * Opens the authorize URL over HTTP, logs in as `userId` and clicks Authorize; returns the redirect
   * location (`…?code=…&state=…`). Throws with the page's message when the request is refused.
   */
  approveAuthorization(authorizeUrl: string, userId: string): Promise<string>;
  /** Same, clicking Cancel; the location carries `error=access_denied`. */
  denyAuthorization(authorizeUrl: string): Promise<string>;
  /**
   * Issues a user token pair without the browser flow. `applicationId` other than ours makes a token
   * of another application (which Add Guild Member must refuse with 50025).
   */
  issueUserTokens(userId: string, scopes: readonly string[], options?: { applicationId?: string }): OAuth2TokenPair;
  expireAccessToken(accessToken: string): void;
  /** The user deauthorizes the application: every token of theirs stops working. */
  revokeUserAuthorization(userId: string): void;
  /** Every token pair issued to the user, live or not (to prove the client kept none). */
  userTokensIssuedTo(userId: string): OAuth2TokenPair[];

  commands(guildId?: string): StoredCommand[];
  /** Bulk-overwrite PUTs of commands received for the global scope or a guild. */
  commandPutCount(guildId?: string): number;
}

const API_PREFIX = '/api/v10';
const CONTROL_PREFIX = '/__sandbox';

/**
 * The path below the API's base, or null: `/api/v10/...`, and the unversioned `/api/oauth2/...` the
 * docs give as the token URL (docs/discord-api-notes.md §1.1).
 */
function apiPath(pathname: string): string | null {
  if (pathname.startsWith(`${API_PREFIX}/`)) return pathname.slice(API_PREFIX.length);
  if (pathname.startsWith('/api/oauth2/')) return pathname.slice('/api'.length);
  return null;
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
    botPublic: options.botPublic ?? true,
  });
  let port = 0;
  const applicationName = options.botUsername ?? 'Tierlink';
  const signingKey = createSigningKey();
  const endpoint = new InteractionsEndpoint(signingKey, clock, applicationId, nextId, options.interactionTimeoutMs ?? INITIAL_RESPONSE_MS);
  const core: CoreContext = {
    state,
    clock,
    applicationId,
    applicationName,
    gatewayUrl: () => `ws://127.0.0.1:${port}`,
    verifyKey: signingKey.publicKeyHex,
    interactionsEndpointUrl: () => endpoint.url,
    gatewayBot: () => gateway.botInfo(),
  };
  const oauth = new OAuth2Store(clock, applicationId);
  const limiter = new RateLimiter(() => rateClock.now().getTime(), options.rateLimits, options.raisedLimits);
  const log = new RequestLog();
  const faults = new FaultInjector();
  const holds = new HoldRegistry();
  const gateway = new Gateway({
    core,
    botToken,
    logger,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    nextId,
    nowMs: () => rateClock.now().getTime(),
    settings: options.gateway,
  });
  const commandStore = new CommandStore(core, nextId);
  const interactions = new InteractionStore(
    core,
    nextId,
    (event, data, guildId) => gateway.dispatch(event, data, 0, guildId),
    (g, name) => commandStore.idFor(g, name),
    endpoint,
  );
  const messageStore = new MessageStore(core, nextId, (event, data, intent, guildId) => gateway.dispatch(event, data, intent, guildId));
  const waiters = new Waiters();
  const routes: RouteDefinition[] = [
    ...restRoutes(core),
    ...userRoutes(core),
    ...oauth2Routes(oauth),
    ...guildJoinRoutes(core, oauth),
    ...messageStore.routes(),
    ...interactions.routes(),
    ...commandStore.routes(),
  ];

  const handleApi = createApiHandler({ routes, botToken, oauth, limiter, log, faults, holds, clock, logger });
  const authorize = authorizePage(oauth, state, applicationName);

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
    const path = apiPath(url.pathname);
    const handler =
      path !== null
        ? handleApi(req, res, url, path)
        : url.pathname.startsWith(`${CONTROL_PREFIX}/`)
          ? handleControlRequest(req, res, url)
          : url.pathname === '/oauth2/authorize'
            ? readBody(req).then((raw) => {
                const answer = authorize.handle((req.method ?? 'GET').toUpperCase(), url.searchParams, req.headers, raw);
                res.writeHead(answer.status, answer.headers);
                res.end(answer.body);
              })
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
    webBaseUrl: `http://127.0.0.1:${port}`,
    publicKey: signingKey.publicKeyHex,
    get clientSecret() {
      return oauth.clientSecret;
    },

    async close() {
      holds.releaseAll();
      interactions.close();
      messageStore.close();
      waiters.cancelAll();
      await gateway.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },

    createGuild: (o) => state.createGuild(o),
    setPreferredLocale: (guildId, locale) => state.setPreferredLocale(guildId, locale),
    guilds: () => [...state.guilds.keys()].map((id) => state.guildSnapshot(id)),
    guild: (guildId) => state.guildSnapshot(guildId),
    createRole: (guildId, o) => state.createRole(guildId, o),
    updateRole: (guildId, roleId, patch) => state.updateRole(guildId, roleId, patch),
    deleteRole: (guildId, roleId) => state.deleteRole(guildId, roleId),
    addMember: (guildId, o) => state.addMember(guildId, o),
    removeMember: (guildId, userId) => state.removeMember(guildId, userId),
    setScreening: (guildId, on) => state.setScreening(guildId, on),
    transferOwnership: (guildId, userId) => state.transferOwnership(guildId, userId),
    completeScreening: (guildId, userId) => state.completeScreening(guildId, userId),
    members(guildId, o = {}) {
      const guild = state.requireGuild(guildId);
      const after = o.after ?? '0';
      return state
        .sortedMemberIds(guild)
        .filter((id) => compareIds(id, after) > 0)
        .slice(0, o.limit ?? Number.POSITIVE_INFINITY)
        .map((id) => state.memberSnapshot(guildId, id));
    },
    banUser: (guildId, userId, o = {}) => state.ban(guildId, userId, o.reason ?? null),
    unbanUser: (guildId, userId) => state.unban(guildId, userId),
    bans: (guildId) => [...state.requireGuild(guildId).bans].map(([userId, ban]) => ({ userId, reason: ban.reason })),
    setMaxMembers(guildId, maxMembers) {
      if (!Number.isInteger(maxMembers) || maxMembers < 1) throw new SandboxUsageError('maxMembers must be a positive integer');
      state.requireGuild(guildId).maxMembers = maxMembers;
    },
    createChannel: (guildId, o) => state.createChannel(guildId, o),
    updateChannel: (channelId, patch) => state.updateChannel(channelId, patch),
    deleteChannel: (channelId) => state.deleteChannel(channelId),
    messages: (channelId) => messageStore.messages(channelId),
    directMessages: (userId) => messageStore.directMessages(userId),
    setDirectMessagesClosed: (userId, closed) => messageStore.setDirectMessagesClosed(userId, closed),
    waitForMessage: (channelId, o) => messageStore.waitForMessage(channelId, o),
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
    rateLimitHits: () => log.rateLimitHits(),
    setMembersIntentEnabled(enabled) {
      state.membersIntentEnabled = enabled;
    },
    setRateLimit: (setting) => limiter.set(setting),
    injectFault: (spec) => faults.inject(spec),
    clearFaults: () => faults.clear(),
    holdRequests: (spec) => holds.hold(spec),
    setBotPublic(isPublic) {
      state.botPublic = isPublic;
    },

    injectCommand: (o) => interactions.inject(o),
    pressButton: (o) => interactions.pressButton(o),
    interactionDelivery: (id) => interactions.delivery(id),
    setInteractionsEndpoint: (url) => endpoint.set(url),
    interactionsEndpointUrl: () => endpoint.url,
    checkInteractionsEndpoint: () => endpoint.check(),
    interactionResponses: (id) => interactions.responses(id),
    waitForInteractionResponse: (id, o) => interactions.waitForResponse(id, o),
    waitForConnection: (o) => gateway.waitForConnection(o?.timeoutMs, o?.sessions),
    setGatewayOptions: (settings) => gateway.configure(settings),
    gatewaySessions: () => gateway.sessionsInfo(),
    gatewayIdentifies: () => gateway.identifyLog(),
    gatewayCloses: () => gateway.closeCodes(),
    disconnectGateway: (code) => gateway.disconnectAll(code),
    setGatewayAvailable: (available) => gateway.setAvailable(available),

    setOAuth2Application(settings) {
      if (settings.clientSecret !== undefined) {
        if (settings.clientSecret.length < 8) throw new SandboxUsageError('a client secret needs at least 8 characters');
        oauth.clientSecret = settings.clientSecret;
      }
      if (settings.redirectUris !== undefined) {
        for (const uri of settings.redirectUris) new URL(uri);
        oauth.redirectUris = [...settings.redirectUris];
      }
    },
    registerRedirectUri(uri) {
      new URL(uri);
      if (!oauth.redirectUris.includes(uri)) oauth.redirectUris.push(uri);
    },
    oauth2Application: () => ({ clientId: applicationId, clientSecret: oauth.clientSecret, redirectUris: [...oauth.redirectUris] }),
    createUser(o = {}) {
      if (o.userId !== undefined && state.users.has(o.userId)) throw new SandboxUsageError(`user ${o.userId} exists already`);
      const user = state.ensureUser(o);
      return { id: user.id, username: user.username, globalName: user.globalName };
    },
    approveAuthorization: (url, userId) => answerAuthorizePage(url, { decision: 'allow', user_id: userId }),
    denyAuthorization: (url) => answerAuthorizePage(url, { decision: 'deny' }),
    issueUserTokens(userId, scopes, o = {}) {
      const user = state.users.get(userId);
      if (!user || user.bot) throw new SandboxUsageError(`no sandbox user ${userId}`);
      return oauth.issue(userId, scopes, o.applicationId);
    },
    expireAccessToken: (token) => oauth.expireAccessToken(token),
    revokeUserAuthorization: (userId) => oauth.revokeAuthorization(userId),
    userTokensIssuedTo: (userId) => oauth.issuedTo(userId),

    commands: (guildId) => commandStore.list(guildId),
    commandPutCount: (guildId) => commandStore.putCount(guildId),
  };
  const control = controlRoutes(sandbox);
  return sandbox;
}
