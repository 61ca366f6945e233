import type { Clock, Random, Sleep } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { CreatorSession } from './creator-session';
import type { DialectMemory } from './dialect';
import { createDialectMemory, dialectNamesIn } from './dialect';
import { PatreonApiError, isPatreonApiError } from './errors';
import type { Http, HttpRequest, RequestInfo, RetryPolicy } from './http';
import { createHttp } from './http';
import type { IncludedIndex, JsonApiDocument } from './json-api';
import { buildQuery, indexIncluded, nextCursor, parseDocument, primaryList, primaryOne, relatedIds } from './json-api';
import type { MemberPage, QueryFor } from './members-iterator';
import { iterateMemberPages } from './members-iterator';
import type { OAuthClient } from './oauth';
import { createOAuthClient } from './oauth';
import type { RequestBudget, RequestPriority } from './request-budget';
import { createRequestBudget } from './request-budget';
import { MAX_POST_PAGES, POST_FIELDS, type Post, type PostStretch, parsePost } from './posts';
import type { Campaign, Member, Tier, UnreadableMember, User, Webhook } from './resources';
import type { OddValueSink } from './attribute-reader';
import { type Result, err, ok } from '../../../core/result';
import {
  CAMPAIGN_CREATOR_FIELDS,
  CAMPAIGN_LINK_FIELDS,
  USER_FIELDS,
  WEBHOOK_FIELDS,
  campaignFields,
  memberFields,
  parseCampaign,
  parseMember,
  parseTier,
  parseUser,
  parseWebhook,
  readMember,
  readTier,
  tierFields,
} from './resources';

/** The included tiers with these ids that the answer carries, as tiers of `campaignId`. */
function includedTiers(included: IncludedIndex, ids: readonly string[], campaignId: string, where: string, odd?: OddValueSink): Tier[] {
  return ids.flatMap((id) => {
    const tier = included.get('tier', id);
    return tier ? [parseTier(tier, { campaignId, where, ...(odd ? { odd } : {}) })] : [];
  });
}

/**
 * A member's entitled tiers, or why the member cannot be read: a tier whose amount or role ids are
 * unreadable leaves the member's roles as they are (an unreadable member), never fails the call.
 */
function memberTiers(included: IncludedIndex, member: Member, where: string, odd?: OddValueSink): Result<Tier[], UnreadableMember> {
  const tiers: Tier[] = [];
  for (const id of member.entitledTierIds) {
    const resource = included.get('tier', id);
    if (!resource) continue;
    const reading = readTier(resource, { campaignId: member.campaignId, where, ...(odd ? { odd } : {}) });
    if (!reading.ok) {
      return err({
        memberId: member.id,
        campaignId: member.campaignId,
        userId: member.userId,
        attribute: 'currently_entitled_tiers',
        reason: `name tier ${id}, whose ${reading.error.attribute} ${reading.error.reason}`,
      });
    }
    tiers.push(reading.value);
  }
  return ok(tiers);
}

/** Spec: Events, Triggers (member events). */
export const MEMBER_TRIGGERS = [
  'members:create',
  'members:update',
  'members:delete',
  'members:pledge:create',
  'members:pledge:update',
  'members:pledge:delete',
] as const;
export type MemberTrigger = (typeof MEMBER_TRIGGERS)[number];

/** Spec: Events, Triggers (post events, newer variant). */
export const POST_TRIGGERS = ['posts:publish', 'posts:update', 'posts:delete'] as const;

export interface PatreonClientOptions {
  /** The spec's {base_url}, e.g. https://www.patreon.com. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The creator's tokens; every call but `getIdentity` runs as the creator. */
  session: CreatorSession;
  fetch?: typeof fetch;
  clock: Clock;
  sleep: Sleep;
  random: Random;
  logger: Logger;
  /** Called once per HTTP attempt (call counting, metrics). */
  onRequest?: (info: RequestInfo) => void;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** The service's dialect, shared by every client of one service; default: this client's own, from `baseUrl`. */
  dialect?: DialectMemory;
  /** The OAuth client's request budget, shared by its clients; default: this client's own. */
  budget?: RequestBudget;
  /** What the service counts the session's requests against (one creator's grant); default: each token. */
  sessionTokenKey?: string;
  /** Told of each odd value of a label the client tolerated (a null tier title, a missing name): `/doctor` reports them. */
  onOddValue?: OddValueSink;
}

export interface MemberDetails {
  member: Member;
  /** The member's entitled tiers. */
  tiers: Tier[];
  user: User | null;
}

export interface CampaignDetails {
  campaign: Campaign;
  tiers: Tier[];
}

export interface Identity {
  user: User;
  /** The user's memberships (with a patron token: only to the client creator's campaigns). */
  members: Member[];
  /** Memberships whose state could not be read (never "not a patron"). */
  unreadable: UnreadableMember[];
  /** The memberships' entitled tiers, with their role ids (so a tier first seen here grants its roles). */
  tiers: Tier[];
}

/** Who waits for a read: `bulk` for the sync's pages, `interactive` (the default) for everything else. */
export interface ReadOptions {
  priority?: RequestPriority;
}

export interface PatreonClient {
  readonly oauth: OAuthClient;
  /** The user behind a patron's access token (scope `identity`); never refreshes that token. */
  getIdentity(accessToken: string, options?: { includeMemberships?: boolean }): Promise<Identity>;
  /**
   * The member's current state, or null when the service no longer knows it (404/410). A member
   * whose state cannot be read is an `invalid_response` carrying `unreadable`.
   */
  getMember(memberId: string, options?: ReadOptions): Promise<MemberDetails | null>;
  /** Pages of a campaign's members (`bulk` unless asked otherwise); see {@link iterateMemberPages}. */
  listMembers(campaignId: string, options?: ReadOptions): AsyncIterable<MemberPage>;
  getCampaigns(): Promise<CampaignDetails[]>;
  getCampaign(campaignId: string): Promise<CampaignDetails>;
  /** The webhooks this client created (spec: only the calling client's are listed). */
  listWebhooks(): Promise<Webhook[]>;
  createWebhook(input: { campaignId: string; uri: string; triggers: readonly string[] }): Promise<Webhook>;
  updateWebhook(webhookId: string, patch: { uri?: string; triggers?: readonly string[]; paused?: boolean }): Promise<Webhook>;
  /** One post (scope `campaigns.posts`), or null when the service no longer knows it. */
  getPost(postId: string): Promise<Post | null>;
  /**
   * A stretch of a campaign's posts (scope `campaigns.posts`): from the cursor `from` (the first
   * page without it), following cursors for at most `pages` pages ({@link MAX_POST_PAGES} by default).
   */
  listPosts(campaignId: string, options?: { from?: string | null; pages?: number }): Promise<PostStretch>;
}

const V2 = '/api/oauth2/v2';

/**
 * The membership-service client (spec: membership-service-api.md, v2; production: Patreon's API
 * v2). Every request names `fields[<type>]` for each type it reads or includes and exactly the
 * `include` it needs (rule 4), in the dialect the service speaks (`dialect.ts`): learned once,
 * so a rejected request is paid at most once per installation. Every attempt is paced by the
 * request budget (`request-budget.ts`).
 */
export function createPatreonClient(options: PatreonClientOptions): PatreonClient {
  const dialect = options.dialect ?? createDialectMemory({ baseUrl: options.baseUrl, logger: options.logger });
  const budget = options.budget ?? createRequestBudget({ clock: options.clock, sleep: options.sleep, dialect });
  const http: Http = createHttp({ ...options, budget });
  const { session } = options;
  const odd = options.onOddValue;
  const oauth = createOAuthClient({ ...options, budget });

  interface Send {
    accessToken: string;
    priority: RequestPriority;
    tokenKey?: string;
  }

  const send = async (path: string, query: URLSearchParams, how: Send): Promise<JsonApiDocument> => {
    const res = await http.request({ method: 'GET', path, query, ...how });
    return parseDocument(res.body, { method: 'GET', path });
  };

  /**
   * A GET in the service's dialect. A 400 to a request that named dialect-specific names may mean
   * the other dialect: the request is sent once more in it when the dialect memory says so.
   */
  const get = async (path: string, queryFor: QueryFor, how: Send): Promise<JsonApiDocument> => {
    const spoken = await dialect.current();
    const query = queryFor(spoken);
    const specific = dialectNamesIn(query, spoken).length > 0;
    try {
      const doc = await send(path, query, how);
      if (specific) await dialect.confirm(spoken);
      return doc;
    } catch (error) {
      if (!specific || !isPatreonApiError(error, 'bad_request') || !(await dialect.rejected(spoken, error))) throw error;
    }
    const next = await dialect.current();
    const again = queryFor(next);
    try {
      const doc = await send(path, again, how);
      if (dialectNamesIn(again, next).length > 0) await dialect.confirm(next);
      return doc;
    } catch (error) {
      if (isPatreonApiError(error, 'bad_request')) await dialect.retryFailed(next);
      throw error;
    }
  };
  const asCreator = (path: string, queryFor: QueryFor, priority: RequestPriority = 'interactive'): Promise<JsonApiDocument> =>
    session.withAccessToken((accessToken) =>
      get(path, queryFor, {
        accessToken,
        priority,
        ...(options.sessionTokenKey !== undefined ? { tokenKey: options.sessionTokenKey } : {}),
      }),
    );
  const creatorWrite = (req: Omit<HttpRequest, 'accessToken'>) =>
    session.withAccessToken((accessToken) =>
      http.request({ ...req, accessToken, ...(options.sessionTokenKey !== undefined ? { tokenKey: options.sessionTokenKey } : {}) }),
    );

  const campaignsQuery =
    (cursor: string | null = null): QueryFor =>
    (d) =>
      buildQuery({
        include: ['tiers', 'creator'],
        fields: { campaign: campaignFields(d), tier: tierFields(d), user: CAMPAIGN_CREATOR_FIELDS },
        cursor,
      });

  const campaignDetails = (doc: JsonApiDocument, resource: ReturnType<typeof primaryOne>, where: string): CampaignDetails => {
    const included = indexIncluded(doc.included);
    const campaign = parseCampaign(resource, included, where, odd);
    return { campaign, tiers: includedTiers(included, relatedIds(resource, 'tiers') ?? [], campaign.id, where, odd) };
  };

  const webhookBody = (id: string | null, attributes: Record<string, unknown>, campaignId?: string): unknown => ({
    data: {
      type: 'webhook',
      ...(id !== null ? { id } : {}),
      attributes,
      ...(campaignId !== undefined ? { relationships: { campaign: { data: { type: 'campaign', id: campaignId } } } } : {}),
    },
  });

  return {
    oauth,

    async getIdentity(accessToken, opts = {}) {
      const path = `${V2}/identity`;
      const queryFor: QueryFor = (d) =>
        buildQuery(
          opts.includeMemberships
            ? {
                include: ['memberships', 'memberships.campaign', 'memberships.currently_entitled_tiers'],
                fields: { user: USER_FIELDS, member: memberFields(d), campaign: CAMPAIGN_LINK_FIELDS, tier: tierFields(d) },
              }
            : { fields: { user: USER_FIELDS } },
        );
      const doc = await get(path, queryFor, { accessToken, priority: 'interactive' });
      const included = indexIncluded(doc.included);
      const user = parseUser(primaryOne(doc, { method: 'GET', path }), included, path, odd);
      const members: Member[] = [];
      const unreadable: UnreadableMember[] = [];
      const tiers: Tier[] = [];
      if (opts.includeMemberships) {
        for (const { memberId } of user.memberships) {
          const resource = included.get('member', memberId);
          if (!resource) continue;
          const reading = readMember(resource, included, { user, where: path, ...(odd ? { odd } : {}) });
          if (!reading.ok) {
            unreadable.push(reading.error);
            continue;
          }
          const entitled = memberTiers(included, reading.value, path, odd);
          if (!entitled.ok) {
            unreadable.push(entitled.error);
            continue;
          }
          members.push(reading.value);
          tiers.push(...entitled.value);
        }
      }
      return { user, members, unreadable, tiers };
    },

    async getMember(memberId, opts = {}) {
      const path = `${V2}/members/${encodeURIComponent(memberId)}`;
      let doc: JsonApiDocument;
      try {
        doc = await asCreator(
          path,
          (d) =>
            buildQuery({
              include: ['campaign', 'currently_entitled_tiers', 'user'],
              fields: { member: memberFields(d), tier: tierFields(d), user: USER_FIELDS, campaign: CAMPAIGN_LINK_FIELDS },
            }),
          opts.priority,
        );
      } catch (e) {
        if (e instanceof PatreonApiError && (e.kind === 'not_found' || e.kind === 'gone')) return null;
        throw e;
      }
      const included = indexIncluded(doc.included);
      const member = parseMember(primaryOne(doc, { method: 'GET', path }), included, { where: path, ...(odd ? { odd } : {}) });
      const tiers = memberTiers(included, member, path, odd);
      if (!tiers.ok) {
        const { memberId, attribute, reason } = tiers.error;
        throw new PatreonApiError({
          kind: 'invalid_response',
          method: 'PARSE',
          path,
          message: `member ${memberId}: ${attribute} ${reason}`,
          unreadable: tiers.error,
        });
      }
      const userResource = included.get('user', member.userId);
      return { member, tiers: tiers.value, user: userResource ? parseUser(userResource, included, path, odd) : null };
    },

    listMembers(campaignId, opts = {}) {
      const priority = opts.priority ?? 'bulk';
      return {
        [Symbol.asyncIterator]: () =>
          iterateMemberPages(
            { getDocument: (path, queryFor) => asCreator(path, queryFor, priority), logger: options.logger, ...(odd ? { odd } : {}) },
            campaignId,
          ),
      };
    },

    async getCampaigns() {
      const path = `${V2}/campaigns`;
      const out: CampaignDetails[] = [];
      const seen = new Set<string>();
      let cursor: string | null = null;
      for (;;) {
        const doc = await asCreator(path, campaignsQuery(cursor));
        for (const resource of primaryList(doc, { method: 'GET', path })) out.push(campaignDetails(doc, resource, path));
        const next = nextCursor(doc);
        if (next === null) return out;
        if (seen.has(next))
          throw new PatreonApiError({ kind: 'pagination_loop', method: 'GET', path, message: 'the campaign list repeated a cursor' });
        seen.add(next);
        cursor = next;
      }
    },

    async getCampaign(campaignId) {
      const path = `${V2}/campaigns/${encodeURIComponent(campaignId)}`;
      const doc = await asCreator(path, campaignsQuery());
      return campaignDetails(doc, primaryOne(doc, { method: 'GET', path }), path);
    },

    async listWebhooks() {
      const path = `${V2}/webhooks`;
      // Patreon's documented list carries no relationships; a webhook without its campaign has campaignId null.
      const doc = await asCreator(path, () =>
        buildQuery({ include: ['campaign'], fields: { webhook: WEBHOOK_FIELDS, campaign: CAMPAIGN_LINK_FIELDS } }),
      );
      return primaryList(doc, { method: 'GET', path }).map((w) => parseWebhook(w, { where: path }));
    },

    async createWebhook(input) {
      const path = `${V2}/webhooks`;
      const res = await creatorWrite({
        method: 'POST',
        path,
        json: webhookBody(null, { triggers: [...input.triggers], uri: input.uri }, input.campaignId),
        unsafe: true,
      });
      const doc = parseDocument(res.body, { method: 'POST', path });
      return parseWebhook(primaryOne(doc, { method: 'POST', path }), { campaignId: input.campaignId, where: path });
    },

    async getPost(postId) {
      const path = `${V2}/posts/${encodeURIComponent(postId)}`;
      try {
        const doc = await asCreator(path, () => buildQuery({ fields: { post: POST_FIELDS } }));
        return parsePost(primaryOne(doc, { method: 'GET', path }), path, options.baseUrl);
      } catch (e) {
        if (e instanceof PatreonApiError && (e.kind === 'not_found' || e.kind === 'gone')) return null;
        throw e;
      }
    },

    async listPosts(campaignId, stretch = {}) {
      const path = `${V2}/campaigns/${encodeURIComponent(campaignId)}/posts`;
      const posts: Post[] = [];
      const seen = new Set<string>();
      let cursor = stretch.from ?? null;
      let resume: string | null = cursor;
      for (let page = 0; page < (stretch.pages ?? MAX_POST_PAGES); page += 1) {
        const from = cursor;
        const doc = await asCreator(path, () => buildQuery({ fields: { post: POST_FIELDS }, cursor: from }));
        for (const resource of primaryList(doc, { method: 'GET', path })) posts.push(parsePost(resource, path, options.baseUrl));
        const next = nextCursor(doc);
        if (next === null || seen.has(next)) return { posts, resume: from };
        seen.add(next);
        cursor = next;
        resume = next;
      }
      return { posts, resume };
    },

    async updateWebhook(webhookId, patch) {
      const path = `${V2}/webhooks/${encodeURIComponent(webhookId)}`;
      const attributes: Record<string, unknown> = {};
      if (patch.uri !== undefined) attributes.uri = patch.uri;
      if (patch.triggers !== undefined) attributes.triggers = [...patch.triggers];
      if (patch.paused !== undefined) attributes.paused = patch.paused;
      const res = await creatorWrite({ method: 'PATCH', path, json: webhookBody(webhookId, attributes) });
      const doc = parseDocument(res.body, { method: 'PATCH', path });
      return parseWebhook(primaryOne(doc, { method: 'PATCH', path }), { where: path });
    },
  };
}
