import type { Authenticated } from './auth';
import { authenticate, isResponse, renderContextFor } from './auth';
import { decodeCursor, encodeCursor } from './cursor';
import type { Faults } from './faults';
import type { Route, SandboxRequest, SandboxResponse } from './http-kit';
import { apiError, json, route } from './http-kit';
import type { EndpointShape, JsonApiQuery, ResourceType } from './json-api';
import { iso, parseJsonApiQuery, renderDocument } from './json-api';
import type { ServiceDialect } from './dialect';
import { PATREON_DEFAULT_PAGE_SIZE } from './dialect';
import type { Store } from './store';
import { lowerBound } from './store';

/** Spec: Limits. 1000 members per page; 500 when pledge events are included. */
export const MEMBERS_PAGE_SIZE = 1000;
export const MEMBERS_PAGE_SIZE_WITH_PLEDGE_HISTORY = 500;

const V2 = '/api/oauth2/v2';

const IDENTITY: EndpointShape = {
  // Nested memberships.* paths are how a client learns a membership's campaign; the spec names
  // the top-level includes only, so this sandbox allows exactly these two nested ones.
  allowedIncludes: ['memberships', 'campaign', 'memberships.campaign', 'memberships.currently_entitled_tiers'],
  paged: false,
};
const CAMPAIGNS: EndpointShape = { allowedIncludes: ['tiers', 'creator', 'benefits', 'goals'], paged: false };
const MEMBERS: EndpointShape = {
  allowedIncludes: ['address', 'campaign', 'currently_entitled_tiers', 'user', 'pledge_history'],
  paged: true,
};
const MEMBER: EndpointShape = {
  allowedIncludes: ['address', 'campaign', 'currently_entitled_tiers', 'user', 'pledge_history'],
  paged: false,
};
/** Spec: posts includes are "not shown", so none is accepted. */
const POSTS: EndpointShape = { allowedIncludes: [], paged: false };
/** Patreon's dialect pages a campaign's posts (its public clients follow cursors there). */
const POSTS_PAGED: EndpointShape = { allowedIncludes: [], paged: true };

/**
 * Neither the spec nor Patreon's documentation gives the posts list's page size or order
 * (docs/patreon-api-notes.md §2.6). Patreon's dialect pages them like members without
 * `page[count]`, oldest first by default: the order in which a reader that stops after a few pages
 * would never see a new post, so a client must work in it.
 */
export type PostsOrder = 'oldest-first' | 'newest-first';

export interface ResourceRouteDeps {
  store: Store;
  types: ReadonlyMap<string, ResourceType>;
  faults: Faults;
  baseUrl: () => string;
  dialect?: ServiceDialect;
  /** Patreon's dialect: the member-list page when `page[count]` is absent. */
  defaultPageSize?: number;
  /** The most members a page holds, whatever is asked (a service answering smaller pages than asked). Default: the Limits. */
  maxPageSize?: number;
  /** Patreon's dialect: the order of a campaign's posts list (not documented). Default oldest first. */
  postsOrder?: PostsOrder;
}

/**
 * Members per page. The spec's dialect always answers its Limits (1000, or 500 with pledge
 * events). Patreon's takes `page[count]` up to those maxima ("1000 results in one page"; a larger
 * count gets the maximum) and, without it, a small default page (docs/patreon-api-notes.md §2.3).
 */
export function memberPageSize(
  query: Pick<JsonApiQuery, 'includePaths' | 'pageCount'>,
  dialect: ServiceDialect,
  defaultSize: number,
): number {
  const max = query.includePaths.includes('pledge_history') ? MEMBERS_PAGE_SIZE_WITH_PLEDGE_HISTORY : MEMBERS_PAGE_SIZE;
  if (dialect === 'spec') return max;
  return Math.min(max, query.pageCount ?? defaultSize);
}

/** The v2 resource endpoints (spec: "v2 resource endpoints") and the v1 current_user. */
export function resourceRoutes(deps: ResourceRouteDeps): Route[] {
  const { store, types } = deps;
  const dialect = deps.dialect ?? 'spec';
  const defaultPageSize = deps.defaultPageSize ?? PATREON_DEFAULT_PAGE_SIZE;
  let nonce = 0;

  const parse = (req: SandboxRequest, shape: EndpointShape): JsonApiQuery | SandboxResponse => {
    const parsed = parseJsonApiQuery(req.query, shape, types, dialect);
    return parsed.ok ? parsed.value : apiError(400, parsed.error);
  };
  const isQuery = (v: JsonApiQuery | SandboxResponse): v is JsonApiQuery => 'fields' in v;

  /** Spec: the `address` include needs `campaigns.members.address`; a missing scope is a 401 (Authentication §8). */
  const needsAddressScope = (query: JsonApiQuery, auth: Authenticated): SandboxResponse | null =>
    query.includePaths.includes('address') && !auth.scopes.has('campaigns.members.address')
      ? apiError(401, 'The access token lacks the scope(s): campaigns.members.address.', {}, { 'www-authenticate': 'Bearer' })
      : null;

  const identity = route('GET', `${V2}/identity`, (req) => {
    const auth = authenticate(store, req.headers, ['identity']);
    if (isResponse(auth)) return auth;
    const query = parse(req, IDENTITY);
    if (!isQuery(query)) return query;
    const ctx = renderContextFor(store, deps.baseUrl(), auth);
    const doc = renderDocument(ctx, types, query, { type: 'user', ids: [auth.user.id], single: true });
    return json(200, { ...doc, links: { self: `${deps.baseUrl()}${V2}/user/${auth.user.id}` } });
  });

  const campaigns = route('GET', `${V2}/campaigns`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns']);
    if (isResponse(auth)) return auth;
    const query = parse(req, CAMPAIGNS);
    if (!isQuery(query)) return query;
    const ids = store.campaignsOf(auth.user.id).map((c) => c.id);
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, { type: 'campaign', ids, single: false });
    return json(200, { ...doc, meta: { pagination: { total: ids.length } } });
  });

  const campaign = route('GET', `${V2}/campaigns/:id`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns']);
    if (isResponse(auth)) return auth;
    const query = parse(req, CAMPAIGNS);
    if (!isQuery(query)) return query;
    const found = store.campaigns.get(req.params.id ?? '');
    if (!found || found.creatorId !== auth.user.id) return apiError(404, 'No such campaign.');
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, {
      type: 'campaign',
      ids: [found.id],
      single: true,
    });
    return json(200, { ...doc, links: { self: `${deps.baseUrl()}${V2}/campaigns/${found.id}` } });
  });

  const members = route('GET', `${V2}/campaigns/:id/members`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns.members']);
    if (isResponse(auth)) return auth;
    const query = parse(req, MEMBERS);
    if (!isQuery(query)) return query;
    const denied = needsAddressScope(query, auth);
    if (denied) return denied;
    const campaignId = req.params.id ?? '';
    const found = store.campaigns.get(campaignId);
    if (!found || found.creatorId !== auth.user.id) return apiError(404, 'No such campaign.');

    let afterSeq = 0;
    let page = 1;
    if (query.cursor !== null) {
      const cursor = decodeCursor(query.cursor);
      if (!cursor || cursor.campaignId !== campaignId) return apiError(400, 'page[cursor] is not a cursor of this list.');
      afterSeq = cursor.afterSeq;
      page = cursor.page;
    }
    const size = Math.min(memberPageSize(query, dialect, defaultPageSize), deps.maxPageSize ?? Infinity);
    const entry = store.campaignMembers(campaignId);
    const start = lowerBound(entry.order, afterSeq + 1);
    const slice = entry.order.slice(start, start + size);
    const last = slice[slice.length - 1];
    let next: string | null =
      last && start + slice.length < entry.order.length ? encodeCursor({ campaignId, afterSeq: last.seq, page: page + 1 }) : null;

    const repeat = query.cursor !== null ? deps.faults.takeRepeatCursor(campaignId, page) : null;
    if (repeat && query.cursor !== null) {
      next = repeat.mode === 'same-cursor' ? query.cursor : encodeCursor({ campaignId, afterSeq, page, nonce: ++nonce });
    }

    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, {
      type: 'member',
      ids: slice.map((m) => m.id),
      single: false,
    });
    const body: Record<string, unknown> = { ...doc, meta: { pagination: { total: entry.order.length, cursors: next ? { next } : {} } } };
    if (next) {
      const params = new URLSearchParams(req.query);
      params.set('page[cursor]', next);
      body.links = { next: `${deps.baseUrl()}${req.path}?${params.toString()}` };
    }
    return json(200, body);
  });

  const member = route('GET', `${V2}/members/:id`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns.members']);
    if (isResponse(auth)) return auth;
    const query = parse(req, MEMBER);
    if (!isQuery(query)) return query;
    const denied = needsAddressScope(query, auth);
    if (denied) return denied;
    const found = store.members.get(req.params.id ?? '');
    // A member of another creator's campaign is answered like an unknown one: no existence leak.
    if (!found || found.deleted || store.campaigns.get(found.campaignId)?.creatorId !== auth.user.id) {
      return apiError(404, 'No such member.');
    }
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, {
      type: 'member',
      ids: [found.id],
      single: true,
    });
    return json(200, { ...doc, links: { self: `${deps.baseUrl()}${V2}/members/${found.id}` } });
  });

  const posts = route('GET', `${V2}/campaigns/:id/posts`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns.posts']);
    if (isResponse(auth)) return auth;
    const query = parse(req, dialect === 'patreon' ? POSTS_PAGED : POSTS);
    if (!isQuery(query)) return query;
    const found = store.campaigns.get(req.params.id ?? '');
    if (!found || found.creatorId !== auth.user.id) return apiError(404, 'No such campaign.');
    const all = [...store.posts.values()].filter((p) => p.campaignId === found.id).map((p) => p.id);
    if (dialect === 'spec') {
      const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, { type: 'post', ids: all, single: false });
      return json(200, { ...doc, meta: { pagination: { total: all.length, cursors: {} } } });
    }
    if ((deps.postsOrder ?? 'oldest-first') === 'newest-first') all.reverse();
    let start = 0;
    let page = 1;
    if (query.cursor !== null) {
      const cursor = decodeCursor(query.cursor);
      if (!cursor || cursor.campaignId !== found.id) return apiError(400, 'page[cursor] is not a cursor of this list.');
      start = cursor.afterSeq;
      page = cursor.page;
    }
    const size = query.pageCount ?? defaultPageSize;
    const ids = all.slice(start, start + size);
    const next = start + size < all.length ? encodeCursor({ campaignId: found.id, afterSeq: start + size, page: page + 1 }) : null;
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, { type: 'post', ids, single: false });
    const body: Record<string, unknown> = { ...doc, meta: { pagination: { total: all.length, cursors: next ? { next } : {} } } };
    if (next) {
      const params = new URLSearchParams(req.query);
      params.set('page[cursor]', next);
      body.links = { next: `${deps.baseUrl()}${req.path}?${params.toString()}` };
    }
    return json(200, body);
  });

  const post = route('GET', `${V2}/posts/:id`, (req) => {
    const auth = authenticate(store, req.headers, ['campaigns.posts']);
    if (isResponse(auth)) return auth;
    const query = parse(req, POSTS);
    if (!isQuery(query)) return query;
    const found = store.posts.get(req.params.id ?? '');
    if (!found || store.campaigns.get(found.campaignId)?.creatorId !== auth.user.id) return apiError(404, 'No such post.');
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, query, {
      type: 'post',
      ids: [found.id],
      single: true,
    });
    return json(200, doc);
  });

  /**
   * v1 current_user with v1 default attributes (spec: v1 resource shapes). Needs `identity`
   * (v1 `users`); pledges only with `identity.memberships` (v1 `pledges-to-me`).
   */
  const currentUser = route('GET', '/api/oauth2/api/current_user', (req) => {
    for (const key of req.query.keys())
      if (key !== 'include' && !key.startsWith('fields[')) return apiError(400, `unknown query parameter ${key}`);
    const auth = authenticate(store, req.headers, ['identity']);
    if (isResponse(auth)) return auth;
    const u = auth.user;
    const base = deps.baseUrl();
    const pledges = auth.scopes.has('identity.memberships') ? store.membershipsOf(u.id).filter((m) => m.patronStatus !== null) : [];
    const statusOf = (s: string | null): string => (s === 'active_patron' ? 'valid' : s === 'declined_patron' ? 'declined' : 'disabled');
    const ownCampaign = store.campaignsOf(u.id)[0];
    return json(200, {
      data: {
        type: 'user',
        id: u.id,
        attributes: {
          first_name: u.firstName ?? '',
          last_name: u.lastName ?? '',
          full_name: u.fullName,
          vanity: u.vanity ?? '',
          ...(auth.scopes.has('identity[email]') ? { email: u.email } : {}),
          about: u.about ?? '',
          social_id: '',
          image_url: `${base}/static/users/${u.id}.png`,
          thumb_url: `${base}/static/users/${u.id}-thumb.png`,
          video: '',
          micro: '',
          social: '',
          url: `${base}/user?u=${u.id}`,
          created: iso(u.createdAt),
        },
        relationships: {
          campaign: { data: ownCampaign ? { type: 'campaign', id: ownCampaign.id } : null },
          pledges: { data: pledges.map((m) => ({ type: 'pledge', id: m.id })) },
        },
      },
      included: pledges.map((m) => ({
        type: 'pledge',
        id: m.id,
        attributes: {
          amount_cents: m.currentlyEntitledAmountCents,
          created_at: iso(m.pledgeRelationshipStart),
          declined_since: m.patronStatus === 'declined_patron' ? iso(m.lastChargeDate) : null,
          pledge_cap_cents: m.currentlyEntitledAmountCents,
          patron_pays_fees: false,
          currency: 'USD',
          status: statusOf(m.patronStatus),
        },
        relationships: {
          patron: { data: { type: 'user', id: m.userId } },
          creator: { data: { type: 'user', id: store.campaigns.get(m.campaignId)?.creatorId ?? '' } },
          reward: { data: m.tierIds[0] ? { type: 'reward', id: m.tierIds[0] } : null },
          address: { data: null },
        },
      })),
    });
  });

  return [identity, campaigns, members, campaign, member, posts, post, currentUser];
}
