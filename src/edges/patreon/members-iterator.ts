import type { Logger } from '../../shared/logger';
import { PatreonApiError } from './errors';
import type { JsonApiDocument } from './json-api';
import { buildQuery, indexIncluded, nextCursor, paginationTotal, primaryList } from './json-api';
import type { Member, Tier, User } from './resources';
import { MEMBER_FIELDS, USER_FIELDS, parseMember, parseTier, parseUser } from './resources';

/** One page of a campaign's members, parsed. */
export interface MemberPage {
  members: Member[];
  /** The tiers included on this page (each member's `currently_entitled_tiers`). */
  tiers: Tier[];
  /** The users included on this page. */
  users: User[];
  /** 1-based. */
  pageNumber: number;
  /** `meta.pagination.total` of this page's answer, when given. */
  total: number | null;
}

export interface MembersIteratorDeps {
  /** GETs a path with a query as the creator and returns the parsed document. */
  getDocument(path: string, query: URLSearchParams): Promise<JsonApiDocument>;
  tierFields: readonly string[];
  logger: Logger;
}

export const MEMBERS_INCLUDE = ['currently_entitled_tiers', 'user'] as const;

/**
 * Pages of `GET /api/oauth2/v2/campaigns/{id}/members`, one at a time, following
 * `meta.pagination.cursors.next` until an answer has none (spec: Limits). Only one page is held.
 *
 * The service has been seen to answer a new cursor for the same page, which loops forever
 * (research (c); patreon-api.ts#180). So this throws `pagination_loop` when a cursor comes back,
 * when every member of a page was already seen, or when the page count runs far past what
 * `total` allows; it never loops. Members seen twice on otherwise new pages (the list shifted
 * under us) are dropped from the later page. Memory: a set of cursors and one of member ids.
 */
export async function* iterateMemberPages(deps: MembersIteratorDeps, campaignId: string): AsyncGenerator<MemberPage, void, undefined> {
  const path = `/api/oauth2/v2/campaigns/${encodeURIComponent(campaignId)}/members`;
  const seenCursors = new Set<string>();
  const seenMembers = new Set<string>();
  const loop = (message: string): PatreonApiError => new PatreonApiError({ kind: 'pagination_loop', method: 'GET', path, message });
  let cursor: string | null = null;
  let pageNumber = 0;
  let maxPages = Infinity;

  for (;;) {
    pageNumber += 1;
    if (pageNumber > maxPages) throw loop(`more than ${maxPages} pages for ${seenMembers.size} members`);
    const query = buildQuery({
      include: MEMBERS_INCLUDE,
      fields: { member: MEMBER_FIELDS, tier: deps.tierFields, user: USER_FIELDS },
      cursor,
    });
    const doc = await deps.getDocument(path, query);
    const where = `${path} page ${pageNumber}`;
    const resources = primaryList(doc, { method: 'GET', path });
    const included = indexIncluded(doc.included);
    const total = paginationTotal(doc);
    if (pageNumber === 1) {
      // Generous: pages of at least one member each, twice over, plus slack.
      maxPages = total !== null && resources.length > 0 ? Math.ceil(total / resources.length) * 2 + 10 : 100_000;
    }

    let repeated = 0;
    const members: Member[] = [];
    for (const resource of resources) {
      if (seenMembers.has(resource.id)) {
        repeated += 1;
        continue;
      }
      seenMembers.add(resource.id);
      members.push(parseMember(resource, included, { campaignId, where }));
    }
    if (resources.length > 0 && repeated === resources.length) throw loop(`page ${pageNumber} repeats members of an earlier page`);
    if (repeated > 0) deps.logger.warn({ campaignId, pageNumber, repeated }, 'member list repeated some members; skipped them');

    const next = nextCursor(doc);
    if (next !== null && seenCursors.has(next)) throw loop(`page ${pageNumber} answered a cursor that was already used`);
    yield {
      members,
      tiers: included.ofType('tier').map((t) => parseTier(t, { campaignId, where })),
      users: included.ofType('user').map((u) => parseUser(u, included, where)),
      pageNumber,
      total,
    };
    if (next === null) return;
    seenCursors.add(next);
    cursor = next;
  }
}
