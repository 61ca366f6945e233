import type { Clock, Random, Sleep } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { CreatorSession } from './creator-session';
import { PatreonApiError } from './errors';
import type { Http, RequestInfo, RetryPolicy } from './http';
import { createHttp } from './http';
import type { JsonApiDocument, QuerySpec } from './json-api';
import { buildQuery, indexIncluded, nextCursor, parseDocument, primaryList, primaryOne } from './json-api';
import type { MemberPage } from './members-iterator';
import { iterateMemberPages } from './members-iterator';
import type { OAuthClient } from './oauth';
import { createOAuthClient } from './oauth';
import type { Campaign, Member, Tier, User, Webhook } from './resources';
import {
  CAMPAIGN_CREATOR_FIELDS,
  CAMPAIGN_FIELDS,
  MEMBER_FIELDS,
  TIER_BASE_FIELDS,
  USER_FIELDS,
  WEBHOOK_FIELDS,
  parseCampaign,
  parseMember,
  parseTier,
  parseUser,
  parseWebhook,
} from './resources';

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

export type TierRoleField = 'chat_role_ids' | 'discord_role_ids';

/**
 * The spec's tier attribute is `chat_role_ids`; production serves `discord_role_ids`
 * (research/tech-facts.md §8). A strict server rejects unknown names, so only the spec's is
 * requested by default; production deployments can ask for both. The parser reads both.
 */
export const DEFAULT_TIER_ROLE_FIELDS: readonly TierRoleField[] = ['chat_role_ids', 'discord_role_ids'];

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
  tierRoleFields?: readonly TierRoleField[];
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
}

export interface PatreonClient {
  readonly oauth: OAuthClient;
  /** The user behind a patron's access token (scope `identity`); never refreshes that token. */
  getIdentity(accessToken: string, options?: { includeMemberships?: boolean }): Promise<Identity>;
  /** The member's current state, or null when the service no longer knows it (404/410). */
  getMember(memberId: string): Promise<MemberDetails | null>;
  /** Pages of a campaign's members; see {@link iterateMemberPages}. */
  listMembers(campaignId: string): AsyncIterable<MemberPage>;
  getCampaigns(): Promise<CampaignDetails[]>;
  getCampaign(campaignId: string): Promise<CampaignDetails>;
  /** The webhooks this client created (spec: only the calling client's are listed). */
  listWebhooks(): Promise<Webhook[]>;
  createWebhook(input: { campaignId: string; uri: string; triggers: readonly string[] }): Promise<Webhook>;
  updateWebhook(webhookId: string, patch: { uri?: string; triggers?: readonly string[]; paused?: boolean }): Promise<Webhook>;
}

const V2 = '/api/oauth2/v2';

/**
 * The membership-service client (spec: membership-service-api.md, v2). Every request names
 * `fields[<type>]` for each type it reads and exactly the `include` it needs (rule 4).
 */
export function createPatreonClient(options: PatreonClientOptions): PatreonClient {
  const http: Http = createHttp(options);
  const { session } = options;
  const oauth = createOAuthClient(options);
  let roleFields: readonly TierRoleField[] = options.tierRoleFields ?? DEFAULT_TIER_ROLE_FIELDS;
  const tierFields = () => [...TIER_BASE_FIELDS, ...roleFields];

  /**
   * The spec names the tier's role ids `chat_role_ids`; production Patreon sends `discord_role_ids`
   * (research/what-users-ask-for.md). Both are asked for; a service that rejects the request with a
   * 400 gets it again once with the single name it accepts (the one its error names as unknown is
   * dropped, else production's), and the choice holds for the life of the client. No probe request.
   */
  const narrowRoleFields = (error: PatreonApiError): boolean => {
    if (error.kind !== 'bad_request' || roleFields.length < 2) return false;
    const text = `${error.message} ${JSON.stringify(error.errors)}`;
    const rejected = roleFields.filter((f) => text.includes(f));
    const kept: TierRoleField[] = rejected.length === 1 ? roleFields.filter((f) => f !== rejected[0]) : ['discord_role_ids'];
    options.logger.info({ tierRoleFields: kept }, 'the service rejected a tier role field; asking for the other from now on');
    roleFields = kept;
    return true;
  };

  /** Queries built before the role fields were narrowed (a paging iterator's) get the current ones. */
  const withCurrentTierFields = (query: URLSearchParams): URLSearchParams => {
    if (!query.has('fields[tier]')) return query;
    const current = new URLSearchParams(query);
    current.set('fields[tier]', tierFields().join(','));
    return current;
  };

  const get = async (path: string, query: URLSearchParams, accessToken: string): Promise<JsonApiDocument> => {
    const send = async () => {
      const res = await http.request({ method: 'GET', path, query: withCurrentTierFields(query), accessToken });
      return parseDocument(res.body, { method: 'GET', path });
    };
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof PatreonApiError) || !query.has('fields[tier]') || !narrowRoleFields(error)) throw error;
      return send();
    }
  };
  const asCreator = (path: string, query: URLSearchParams): Promise<JsonApiDocument> =>
    session.withAccessToken((token) => get(path, query, token));

  const campaignsQuery = (): QuerySpec => ({
    include: ['tiers', 'creator'],
    fields: { campaign: CAMPAIGN_FIELDS, tier: tierFields(), user: CAMPAIGN_CREATOR_FIELDS },
  });

  const campaignDetails = (doc: JsonApiDocument, resource: ReturnType<typeof primaryOne>, where: string): CampaignDetails => {
    const included = indexIncluded(doc.included);
    const campaign = parseCampaign(resource, included, where);
    const tierIds = resource.relationships?.tiers?.data;
    const ids = Array.isArray(tierIds) ? tierIds.map((t) => t.id) : [];
    const tiers = ids.flatMap((id) => {
      const tier = included.get('tier', id);
      return tier ? [parseTier(tier, { campaignId: campaign.id, where })] : [];
    });
    return { campaign, tiers };
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
      const spec: QuerySpec = opts.includeMemberships
        ? {
            include: ['memberships', 'memberships.campaign', 'memberships.currently_entitled_tiers'],
            fields: { user: USER_FIELDS, member: MEMBER_FIELDS },
          }
        : { fields: { user: USER_FIELDS } };
      const doc = await get(path, buildQuery(spec), accessToken);
      const included = indexIncluded(doc.included);
      const user = parseUser(primaryOne(doc, { method: 'GET', path }), included, path);
      const members = opts.includeMemberships
        ? user.memberships.flatMap(({ memberId }) => {
            const resource = included.get('member', memberId);
            return resource ? [parseMember(resource, included, { user, where: path })] : [];
          })
        : [];
      return { user, members };
    },

    async getMember(memberId) {
      const path = `${V2}/members/${encodeURIComponent(memberId)}`;
      let doc: JsonApiDocument;
      try {
        doc = await asCreator(
          path,
          buildQuery({
            include: ['campaign', 'currently_entitled_tiers', 'user'],
            fields: { member: MEMBER_FIELDS, tier: tierFields(), user: USER_FIELDS },
          }),
        );
      } catch (e) {
        if (e instanceof PatreonApiError && (e.kind === 'not_found' || e.kind === 'gone')) return null;
        throw e;
      }
      const included = indexIncluded(doc.included);
      const member = parseMember(primaryOne(doc, { method: 'GET', path }), included, { where: path });
      const tiers = member.entitledTierIds.flatMap((id) => {
        const tier = included.get('tier', id);
        return tier ? [parseTier(tier, { campaignId: member.campaignId, where: path })] : [];
      });
      const userResource = included.get('user', member.userId);
      return { member, tiers, user: userResource ? parseUser(userResource, included, path) : null };
    },

    listMembers(campaignId) {
      return {
        [Symbol.asyncIterator]: () =>
          iterateMemberPages({ getDocument: asCreator, tierFields: tierFields(), logger: options.logger }, campaignId),
      };
    },

    async getCampaigns() {
      const path = `${V2}/campaigns`;
      const out: CampaignDetails[] = [];
      const seen = new Set<string>();
      let cursor: string | null = null;
      for (;;) {
        const doc = await asCreator(path, buildQuery({ ...campaignsQuery(), cursor }));
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
      const doc = await asCreator(path, buildQuery(campaignsQuery()));
      return campaignDetails(doc, primaryOne(doc, { method: 'GET', path }), path);
    },

    async listWebhooks() {
      const path = `${V2}/webhooks`;
      const doc = await asCreator(path, buildQuery({ include: ['campaign'], fields: { webhook: WEBHOOK_FIELDS } }));
      return primaryList(doc, { method: 'GET', path }).map((w) => parseWebhook(w, { where: path }));
    },

    async createWebhook(input) {
      const path = `${V2}/webhooks`;
      const res = await session.withAccessToken((accessToken) =>
        http.request({
          method: 'POST',
          path,
          accessToken,
          json: webhookBody(null, { triggers: [...input.triggers], uri: input.uri }, input.campaignId),
          unsafe: true,
        }),
      );
      const doc = parseDocument(res.body, { method: 'POST', path });
      return parseWebhook(primaryOne(doc, { method: 'POST', path }), { campaignId: input.campaignId, where: path });
    },

    async updateWebhook(webhookId, patch) {
      const path = `${V2}/webhooks/${encodeURIComponent(webhookId)}`;
      const attributes: Record<string, unknown> = {};
      if (patch.uri !== undefined) attributes.uri = patch.uri;
      if (patch.triggers !== undefined) attributes.triggers = [...patch.triggers];
      if (patch.paused !== undefined) attributes.paused = patch.paused;
      const res = await session.withAccessToken((accessToken) =>
        http.request({ method: 'PATCH', path, accessToken, json: webhookBody(webhookId, attributes) }),
      );
      const doc = parseDocument(res.body, { method: 'PATCH', path });
      return parseWebhook(primaryOne(doc, { method: 'PATCH', path }), { where: path });
    },
  };
}
