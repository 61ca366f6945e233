import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../support/clock';
import { systemClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { silentLogger } from '../support/logger';
import { liveAccessToken, tokenKindOf } from './auth';
import { CONSENT_DECISION_PATH, requestIdFromConsentPage } from './consent-page';
import { controlRoutes } from './control-api';
import type { RateLimits, RateWindow, ServiceDialect } from './dialect';
import { PATREON_DEFAULT_PAGE_SIZE, PATREON_RATE_LIMITS } from './dialect';
import type { FaultSpec, RepeatCursorSpec } from './faults';
import { createFaults, faultResponse } from './faults';
import type { GenerateMembersOptions, GeneratedMembers } from './generator';
import { generateMembers } from './generator';
import type { Route, SandboxResponse } from './http-kit';
import { acceptsJson, apiError, matchRoute, plainJson } from './http-kit';
import { iso } from './json-api';
import { oauthRoutes } from './oauth-routes';
import type { RateLimiter } from './rate-limits';
import { createRateLimiter } from './rate-limits';
import { type PostsOrder, resourceRoutes } from './resource-routes';
import { createResourceTypes } from './resource-types';
import { V2_SCOPES } from './scopes';
import { createStore } from './store';
import type {
  ChangeOptions,
  CreateCampaignInput,
  CreateTierInput,
  CreateUserInput,
  DeliveryRecord,
  JsonValue,
  MemberRecord,
  MembershipInput,
  PostInput,
  RequestLogEntry,
  SandboxClient,
  SandboxMember,
  SandboxWebhook,
  TokenPair,
} from './types';
import type { RawDeliveryInput, SignatureHeader } from './webhook-delivery';
import { createWebhookDelivery } from './webhook-delivery';
import { memberEventBody, postEventBody } from './webhook-payloads';
import { webhookRoutes } from './webhook-routes';

export interface MembershipServiceSandboxOptions {
  /**
   * `spec` (default): the spec's names. `patreon`: Patreon's documented API v2 (see `dialect.ts`);
   * each refuses the other's names with 400.
   */
  dialect?: ServiceDialect;
  /** Drives token and code expiry, timestamps, generated dates and rate-limit windows. Default: the system clock. */
  clock?: Clock;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  logger?: Logger;
  /**
   * Header names that carry the delivery signature. Default: both in the spec dialect (as before
   * the dialects; Tierlink reads either), `X-Patreon-Signature` in Patreon's.
   */
  signatureHeaders?: SignatureHeader[];
  /**
   * Requests answered 429 beyond these. Default: Patreon's published limits (100 per 2 s per
   * client, 100 per minute per token) in both dialects: the spec's names Patreon's API and states
   * no quota of its own (docs/patreon-api-notes.md §6). Anything above them (or `none`) needs
   * {@link raisedLimits}.
   */
  rateLimits?: RateLimits | 'none';
  /**
   * Why this stand-in's limits go above Patreon's (required when `rateLimits` does): a test whose
   * claim is not about the limits, a benchmark of Tierlink alone.
   */
  raisedLimits?: string;
  /** Patreon's dialect: members per page when `page[count]` is absent. Default 20 (reported). */
  defaultPageSize?: number;
  /** Members per page at most, whatever `page[count]` asks: a service that answers smaller pages. Default: the Limits (1000). */
  maxPageSize?: number;
  /** Patreon's dialect: the order of a campaign's posts list, which Patreon does not document. Default oldest first. */
  postsOrder?: PostsOrder;
  /**
   * `omitted`: the webhook list never carries the campaign relationship, as Patreon's documented
   * sample shows none. Default: `omitted` in Patreon's dialect, `included` in the spec's.
   */
  webhookListCampaign?: 'included' | 'omitted';
  /** Consecutive failed deliveries after which a webhook pauses (spec leaves it open). Default 3. */
  pauseAfterFailures?: number;
  /** `expires_in` of issued access tokens, in seconds. Default 31 days. */
  accessTokenLifetimeSeconds?: number;
}

export interface SandboxUser {
  id: string;
  fullName: string;
  discordUserId: string | null;
}

export interface SandboxCampaign {
  id: string;
  creatorId: string;
  vanity: string | null;
}

export interface SandboxTier {
  id: string;
  campaignId: string;
  title: string;
  amountCents: number;
  published: boolean;
  chatRoleIds: JsonValue;
  discordRoleIds: JsonValue;
}

/** A running stand-in of the membership service (spec: membership-service-api.md). */
export interface MembershipServiceSandbox {
  /** The spec's {base_url}, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly dialect: ServiceDialect;
  /** The seeded OAuth client. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The seeded creator, who registered the client and owns `campaignId`. */
  readonly creatorUserId: string;
  readonly campaignId: string;
  /** The creator's tokens from registration; they hold every v2 scope (Authentication §1–2). */
  readonly creatorTokens: TokenPair;
  close(): Promise<void>;

  // OAuth
  setRedirectUris(uris: readonly string[]): void;
  registerRedirectUri(uri: string): void;
  /** Registers another client of the seeded creator (to test "only this client's webhooks"). */
  createClient(options?: { redirectUris?: string[] }): SandboxClient;
  /** Opens the authorize URL over HTTP, logs in as `userId`, clicks Allow; returns the redirect location. */
  approveAuthorization(authorizeUrl: string, userId: string): Promise<string>;
  /** Same, clicking Deny; the location carries `error=access_denied`. */
  denyAuthorization(authorizeUrl: string): Promise<string>;
  /** Issues tokens without the browser flow. Default client: the seeded one. */
  issueTokens(userId: string, scopes: readonly string[], clientId?: string): TokenPair;
  expireAccessToken(token: string): void;
  revokeRefreshToken(token: string): void;
  /**
   * Read-only, for tests: every token pair issued to `userId` by any route (code exchange, refresh,
   * `issueTokens`), live or not, so a test can prove none of them was kept by the client.
   */
  tokensIssuedTo(userId: string): TokenPair[];

  // data
  /** A campaign of the seeded creator, or of `creatorUserId` (another creator, unrelated to the client). */
  createCampaign(input?: CreateCampaignInput & { creatorUserId?: string }): SandboxCampaign;
  createTier(campaignId: string, input: CreateTierInput): SandboxTier;
  updateTier(tierId: string, patch: Partial<CreateTierInput>): SandboxTier;
  /** Charges per month (`is_monthly: true`, `pay_per_name: "month"`) or per creation. */
  updateCampaign(campaignId: string, patch: { isMonthly?: boolean }): void;
  deleteTier(tierId: string): void;
  createUser(input: CreateUserInput): SandboxUser;
  updateUser(userId: string, patch: { fullName?: string; discordUserId?: string | null }): SandboxUser;
  /** Creates or changes a membership, then (by default) delivers the trigger to subscribed webhooks. */
  setMembership(userId: string, campaignId: string, input: MembershipInput, options?: ChangeOptions): SandboxMember;
  /** Deletes a member (later GET → 404), delivering `members:delete` by default. */
  deleteMember(memberId: string, options?: ChangeOptions): void;
  getMember(memberId: string): SandboxMember | null;
  /**
   * Serves these member attributes verbatim from now on, whatever the record says (`null` clears
   * them all): an "odd member" with an unknown `patron_status` or an unexpected null.
   */
  overrideMemberAttributes(memberId: string, attributes: Record<string, JsonValue> | null): void;
  /**
   * Serves these attributes of a resource verbatim from now on (`null` clears them all): a tier
   * whose `title` is null, a user whose `full_name` is null, as Patreon has been seen to answer.
   */
  overrideAttributes(type: 'member' | 'user' | 'tier' | 'campaign', id: string, attributes: Record<string, JsonValue> | null): void;
  /** Serves a resource without these attributes even when asked for (a value the service stopped sending); `[]` serves them again. */
  omitAttributes(type: 'member' | 'user' | 'tier' | 'campaign', id: string, names: readonly string[]): void;
  /**
   * The service drops these attributes of a type altogether, as Patreon will its deprecated ones
   * (`is_follower`, `lifetime_support_cents`: docs/patreon-api-notes.md §1.1): asking for one is
   * answered 400 like any unknown name, and no answer or delivery carries it.
   */
  retireAttributes(type: string, names: readonly string[]): void;
  memberOf(userId: string, campaignId: string): SandboxMember | null;
  generateMembers(options: GenerateMembersOptions): GeneratedMembers;
  /** Publishes a post and delivers `posts:publish` (or the given trigger). */
  publishPost(campaignId: string, input?: PostInput, options?: ChangeOptions): { id: string };

  // webhooks
  webhooks(): SandboxWebhook[];
  pauseWebhook(webhookId: string): void;
  /** One scheduled retry of a failing (not paused) webhook's oldest queued event. */
  retryWebhook(webhookId: string): void;
  deliveries(): DeliveryRecord[];
  clearDeliveries(): void;
  flushDeliveries(): Promise<void>;
  redeliver(deliveryId: string, overrides?: { signature?: string | null; uri?: string }): Promise<DeliveryRecord>;
  deliverRaw(input: RawDeliveryInput): Promise<DeliveryRecord>;

  // faults and request log
  injectFault(spec: FaultSpec): string;
  injectRepeatCursor(spec: RepeatCursorSpec): string;
  removeFault(faultId: string): void;
  clearFaults(): void;
  requests(): RequestLogEntry[];
  resetRequests(): void;
}

/** Bodies above this are refused (spec: Errors, 400 "size too large"). */
const MAX_BODY_BYTES = 1_000_000;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function snapshotMember(m: MemberRecord, liveTierIds: string[]): SandboxMember {
  return {
    id: m.id,
    userId: m.userId,
    campaignId: m.campaignId,
    patronStatus: m.patronStatus,
    tierIds: liveTierIds,
    isFollower: m.isFollower,
    isFreeTrial: m.isFreeTrial,
    isGifted: m.isGifted,
    lastChargeDate: iso(m.lastChargeDate),
    lastChargeStatus: m.lastChargeStatus,
    pledgeRelationshipStart: iso(m.pledgeRelationshipStart),
    currentlyEntitledAmountCents: m.currentlyEntitledAmountCents,
    lifetimeSupportCents: m.lifetimeSupportCents,
    deleted: m.deleted,
  };
}

const triggersOf = (option: ChangeOptions['trigger'], fallback: string): readonly string[] =>
  option === undefined ? [fallback] : typeof option === 'string' ? [option] : option;

/** A window more generous than Patreon's in any way: a larger burst, or a shorter wait for the next. */
const raises = (window: RateWindow, real: RateWindow): boolean => window.requests > real.requests || window.windowMs < real.windowMs;

/** Refuses limits above Patreon's unless a reason is given. */
function checkRaise(limits: RateLimits | 'none', raised: string | undefined): void {
  const above =
    limits === 'none' || raises(limits.perClient, PATREON_RATE_LIMITS.perClient) || raises(limits.perToken, PATREON_RATE_LIMITS.perToken);
  if (!above || (raised !== undefined && raised.trim().length > 0)) return;
  throw new RangeError(
    "the membership stand-in keeps Patreon's limits (100 per 2 s per client, 100 per minute per token); these raise them: say why (raisedLimits)",
  );
}

/**
 * Starts the sandbox: a strict HTTP stand-in of the membership service, seeded with one OAuth
 * client, its creator, the creator's campaign and the creator's tokens (all v2 scopes).
 */
export async function createMembershipServiceSandbox(options: MembershipServiceSandboxOptions = {}): Promise<MembershipServiceSandbox> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const dialect = options.dialect ?? 'spec';
  const store = createStore(clock, { accessTokenLifetimeSeconds: options.accessTokenLifetimeSeconds, dialect });
  const types = createResourceTypes(dialect);
  const faults = createFaults();
  const delivery = createWebhookDelivery({
    store,
    logger,
    signatureHeaders:
      options.signatureHeaders ?? (dialect === 'patreon' ? ['X-Patreon-Signature'] : ['X-Patreon-Signature', 'X-Service-Signature']),
    pauseAfterFailures: options.pauseAfterFailures ?? 3,
  });
  const limits = options.rateLimits ?? PATREON_RATE_LIMITS;
  checkRaise(limits, options.raisedLimits);
  const limiter: RateLimiter | null = limits === 'none' ? null : createRateLimiter(limits, clock);
  const requestLog: RequestLogEntry[] = [];
  let baseUrl = '';
  const getBaseUrl = (): string => baseUrl;

  const creator = store.createUser({ fullName: 'Casey Creator', vanity: 'casey', discordUserId: null });
  const campaign = store.createCampaign(creator.id, { vanity: 'casey', summary: 'The sandbox creator\u2019s campaign' });
  const client = store.createClient(creator.id, []);
  const creatorTokens = store.issueTokens(client.id, creator.id, V2_SCOPES);

  const requireRecord = (type: 'member' | 'user' | 'tier' | 'campaign', id: string): void => {
    const found = { member: store.members, user: store.users, tier: store.tiers, campaign: store.campaigns }[type].has(id);
    if (!found) throw new Error(`no ${type} ${id}`);
  };
  const requireUser = (userId: string) => {
    const user = store.users.get(userId);
    if (!user) throw new Error(`no user ${userId}`);
    return user;
  };
  const tierSnapshot = (id: string): SandboxTier => {
    const t = store.tiers.get(id);
    if (!t) throw new Error(`no tier ${id}`);
    return {
      id: t.id,
      campaignId: t.campaignId,
      title: t.title,
      amountCents: t.amountCents,
      published: t.published,
      chatRoleIds: t.chatRoleIds,
      discordRoleIds: t.discordRoleIds,
    };
  };
  const emitMember = (member: MemberRecord, triggers: readonly string[]): void => {
    for (const trigger of triggers) delivery.emit(member.campaignId, trigger, () => memberEventBody(store, types, baseUrl, member.id));
  };

  async function consentRequestId(authorizeUrl: string): Promise<string> {
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    const page = await res.text();
    if (res.status !== 200)
      throw new Error(
        `the authorize page answered ${res.status}: ${page
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()}`,
      );
    const id = requestIdFromConsentPage(page);
    if (!id) throw new Error('the authorize page carries no consent form');
    return id;
  }

  async function decide(authorizeUrl: string, fields: Record<string, string>): Promise<string> {
    const res = await fetch(new URL(CONSENT_DECISION_PATH, authorizeUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    const text = await res.text();
    const location = res.headers.get('location');
    if (res.status !== 302 || !location)
      throw new Error(
        `the consent form answered ${res.status}: ${text
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()}`,
      );
    return location;
  }

  const sandbox: MembershipServiceSandbox = {
    get url() {
      return baseUrl;
    },
    dialect,
    clientId: client.id,
    clientSecret: client.secret,
    creatorUserId: creator.id,
    campaignId: campaign.id,
    creatorTokens,
    close: async () => {
      delivery.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },

    setRedirectUris(uris) {
      client.redirectUris = [...uris];
    },
    registerRedirectUri(uri) {
      if (!client.redirectUris.includes(uri)) client.redirectUris.push(uri);
    },
    createClient(opts = {}) {
      const extra = store.createClient(creator.id, opts.redirectUris ?? []);
      return {
        clientId: extra.id,
        clientSecret: extra.secret,
        ownerUserId: creator.id,
        redirectUris: [...extra.redirectUris],
        creatorTokens: store.issueTokens(extra.id, creator.id, V2_SCOPES),
      };
    },
    async approveAuthorization(authorizeUrl, userId) {
      const request = await consentRequestId(authorizeUrl);
      return decide(authorizeUrl, { request, user_id: userId, decision: 'allow' });
    },
    async denyAuthorization(authorizeUrl) {
      const request = await consentRequestId(authorizeUrl);
      return decide(authorizeUrl, { request, decision: 'deny' });
    },
    issueTokens(userId, scopes, clientId = client.id) {
      requireUser(userId);
      if (!store.clients.has(clientId)) throw new Error(`no client ${clientId}`);
      return store.issueTokens(clientId, userId, scopes);
    },
    expireAccessToken(token) {
      const record = store.tokens.get(token);
      if (!record || record.kind !== 'access') throw new Error('not an access token of this sandbox');
      record.expiresAt = new Date(clock.now().getTime() - 1);
    },
    revokeRefreshToken(token) {
      const record = store.tokens.get(token);
      if (!record || record.kind !== 'refresh') throw new Error('not a refresh token of this sandbox');
      record.revoked = true;
    },
    tokensIssuedTo(userId) {
      const out: TokenPair[] = [];
      for (const t of store.tokens.values()) {
        if (t.kind !== 'access' || t.userId !== userId) continue;
        out.push({ accessToken: t.value, refreshToken: t.partner, expiresIn: store.accessTokenLifetimeSeconds, scopes: [...t.scopes] });
      }
      return out;
    },

    createCampaign(input = {}) {
      const { creatorUserId, ...rest } = input;
      const c = store.createCampaign(creatorUserId ?? creator.id, rest);
      return { id: c.id, creatorId: c.creatorId, vanity: c.vanity };
    },
    createTier(campaignId, input) {
      return tierSnapshot(store.createTier(campaignId, input).id);
    },
    updateTier(tierId, patch) {
      return tierSnapshot(store.updateTier(tierId, patch).id);
    },
    updateCampaign(campaignId, patch) {
      store.updateCampaign(campaignId, patch);
    },
    deleteTier(tierId) {
      store.deleteTier(tierId);
    },
    createUser(input) {
      const u = store.createUser(input);
      return { id: u.id, fullName: u.fullName, discordUserId: u.discordUserId };
    },
    updateUser(userId, patch) {
      const u = requireUser(userId);
      if (patch.fullName !== undefined) u.fullName = patch.fullName;
      if (patch.discordUserId !== undefined) u.discordUserId = patch.discordUserId;
      return { id: u.id, fullName: u.fullName, discordUserId: u.discordUserId };
    },
    setMembership(userId, campaignId, input, opts = {}) {
      const { member, created } = store.upsertMember(userId, campaignId, input);
      if (opts.deliver !== false) emitMember(member, triggersOf(opts.trigger, created ? 'members:create' : 'members:update'));
      return snapshotMember(member, store.liveTierIds(member));
    },
    deleteMember(memberId, opts = {}) {
      const member = store.deleteMember(memberId);
      if (opts.deliver !== false) emitMember(member, triggersOf(opts.trigger, 'members:delete'));
    },
    getMember(memberId) {
      const m = store.members.get(memberId);
      return m ? snapshotMember(m, store.liveTierIds(m)) : null;
    },
    overrideMemberAttributes(memberId, attributes) {
      sandbox.overrideAttributes('member', memberId, attributes);
    },
    overrideAttributes(type, id, attributes) {
      requireRecord(type, id);
      const key = `${type}:${id}`;
      if (attributes === null) store.attributeOverrides.delete(key);
      else store.attributeOverrides.set(key, { ...store.attributeOverrides.get(key), ...attributes });
    },
    omitAttributes(type, id, names) {
      requireRecord(type, id);
      if (names.length === 0) store.omittedAttributes.delete(`${type}:${id}`);
      else store.omittedAttributes.set(`${type}:${id}`, new Set(names));
    },
    retireAttributes(type, names) {
      const resourceType = types.get(type);
      if (!resourceType) throw new Error(`no resource type ${type}`);
      resourceType.retire(names);
    },
    memberOf(userId, campaignId) {
      const m = store.campaignMembers(campaignId).byUser.get(userId);
      return m ? snapshotMember(m, store.liveTierIds(m)) : null;
    },
    generateMembers(opts) {
      return generateMembers(store, opts);
    },
    publishPost(campaignId, input = {}, opts = {}) {
      const c = store.campaigns.get(campaignId);
      if (!c) throw new Error(`no campaign ${campaignId}`);
      const post = store.createPost(campaignId, c.creatorId, {
        title: input.title ?? 'A new post',
        content: input.content ?? '<p>Hello, patrons.</p>',
        isPublic: input.isPublic ?? false,
        isPaid: input.isPaid ?? false,
        tierIds: input.tierIds ?? [],
        publishedAt: clock.now(),
      });
      if (opts.deliver !== false) {
        for (const trigger of triggersOf(opts.trigger, 'posts:publish'))
          delivery.emit(campaignId, trigger, () => postEventBody(store, types, baseUrl, post.id));
      }
      return { id: post.id };
    },

    webhooks() {
      return [...store.webhooks.values()].map((w) => ({
        id: w.id,
        clientId: w.clientId,
        campaignId: w.campaignId,
        uri: w.uri,
        triggers: [...w.triggers],
        secret: w.secret,
        paused: w.paused,
        numConsecutiveTimesFailed: w.numConsecutiveTimesFailed,
        lastAttemptedAt: iso(w.lastAttemptedAt),
        queued: w.queue.length,
      }));
    },
    pauseWebhook: (id) => delivery.pause(id),
    retryWebhook: (id) => delivery.retry(id),
    deliveries: () => delivery.deliveries(),
    clearDeliveries: () => delivery.clearDeliveries(),
    flushDeliveries: () => delivery.flush(),
    redeliver: (id, overrides) => delivery.redeliver(id, overrides),
    deliverRaw: (input) => delivery.deliverRaw(input),

    injectFault: (spec) => faults.inject(spec),
    injectRepeatCursor: (spec) => faults.injectRepeatCursor(spec),
    removeFault: (id) => faults.remove(id),
    clearFaults: () => faults.clear(),
    requests: () => requestLog.map((r) => ({ ...r, query: { ...r.query } })),
    resetRequests: () => {
      requestLog.length = 0;
    },
  };

  const serviceRoutes: Route[] = [
    ...oauthRoutes(store),
    ...resourceRoutes({
      store,
      types,
      faults,
      baseUrl: getBaseUrl,
      dialect,
      defaultPageSize: options.defaultPageSize ?? PATREON_DEFAULT_PAGE_SIZE,
      ...(options.maxPageSize !== undefined ? { maxPageSize: options.maxPageSize } : {}),
      ...(options.postsOrder !== undefined ? { postsOrder: options.postsOrder } : {}),
    }),
    ...webhookRoutes({
      store,
      types,
      delivery,
      baseUrl: getBaseUrl,
      dialect,
      listCampaign: options.webhookListCampaign ?? (dialect === 'patreon' ? 'omitted' : 'included'),
    }),
  ];
  const routes: Route[] = [...serviceRoutes, ...controlRoutes(sandbox, faults)];

  async function answer(req: IncomingMessage, method: string, url: URL, body: Buffer): Promise<SandboxResponse> {
    const path = url.pathname;
    const found = matchRoute(routes, method, path);
    if (found.kind === 'none')
      return path.startsWith('/__sandbox') ? plainJson(404, { error: 'no such control route' }) : apiError(404, 'No such endpoint.');
    if (found.kind === 'method') return apiError(405, `${method} is not allowed on ${path}.`);
    if (path.startsWith('/api/') && !acceptsJson(req.headers)) return apiError(406, 'Only JSON is served.');
    try {
      return await found.route.handler({ method, path, query: url.searchParams, headers: req.headers, body, params: found.params });
    } catch (e) {
      logger.error({ err: e, method, path }, 'sandbox route failed');
      return apiError(500, 'The sandbox failed to handle the request.');
    }
  }

  /** The 429 of a request over the rate limits; only requests with a live token count (see `rate-limits.ts`). */
  function throttled(req: IncomingMessage, url: URL): SandboxResponse | null {
    if (!limiter || !url.pathname.startsWith('/api/oauth2/') || url.pathname === '/api/oauth2/token') return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const token = liveAccessToken(store, match?.[1] ?? null);
    return token ? limiter.admit({ clientId: token.clientId, userId: token.userId }) : null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const logged = !url.pathname.startsWith('/__sandbox');
    const tokenKind = logged ? tokenKindOf(store, req.headers) : 'none';
    const entry = (status: number, faultId: string | null): RequestLogEntry => ({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status,
      at: clock.now().toISOString(),
      tokenKind,
      faultId,
    });

    const body = await readBody(req);
    let response: SandboxResponse;
    let faultId: string | null = null;
    const fault = logged ? faults.take(method, url.pathname) : null;
    if (fault && fault.spec.status === 'reset') {
      requestLog.push(entry(0, fault.id));
      req.socket.destroy();
      return;
    }
    if (fault && typeof fault.spec.status === 'number') {
      faultId = fault.id;
      response = faultResponse(fault.spec, fault.spec.status);
    } else if (body === null) {
      response = apiError(400, 'The request body is too large.');
    } else {
      response = throttled(req, url) ?? (await answer(req, method, url, body));
    }
    if (logged) requestLog.push(entry(response.status, faultId));
    res.writeHead(response.status, { 'cache-control': 'no-store', ...response.headers });
    res.end(response.body ?? '');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      logger.error({ err: e }, 'sandbox request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;
  logger.info({ url: baseUrl }, 'membership-service sandbox listening');
  return sandbox;
}
