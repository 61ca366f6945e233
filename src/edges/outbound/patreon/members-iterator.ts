import type { Logger } from '../../../shared/logger';
import type { ServiceDialect } from './dialect';
import { nameIn } from './dialect';
import { PatreonApiError } from './errors';
import type { JsonApiDocument } from './json-api';
import { buildQuery, indexIncluded, nextCursor, paginationTotal, primaryList } from './json-api';
import { err } from '../../../core/result';
import type { OddValueSink } from './attribute-reader';
import type { Member, MemberReading, Tier, UnreadableMember, User } from './resources';
import { USER_FIELDS, memberFields, parseUser, readMember, readTier, tierFields } from './resources';

/** One page of a campaign's members, parsed. */
export interface MemberPage {
  members: Member[];
  /**
   * Members of this page whose state could not be read (see {@link UnreadableMember}): never in
   * `members`, never "not a patron"; their roles stay as they are.
   */
  unreadable: UnreadableMember[];
  /** The tiers included on this page (each member's `currently_entitled_tiers`). */
  tiers: Tier[];
  /** The users included on this page. */
  users: User[];
  /** 1-based. */
  pageNumber: number;
  /** `meta.pagination.total` of this page's answer, when given. */
  total: number | null;
}

/** Builds a page's query in the dialect the request is sent in (learned or switched between pages). */
export type QueryFor = (dialect: ServiceDialect) => URLSearchParams;

export interface MembersIteratorDeps {
  /** GETs a path as the creator (a bulk request) and returns the parsed document. */
  getDocument(path: string, query: QueryFor): Promise<JsonApiDocument>;
  logger: Logger;
  /** Where odd values of labels go (tolerated, reported by `/doctor`). */
  odd?: OddValueSink;
}

export const MEMBERS_INCLUDE = ['currently_entitled_tiers', 'user'] as const;

/**
 * Patreon: "1000 results in one page. If pledge events are requested in includes, it has 500"
 * (docs/patreon-api-notes.md §2.3); without `page[count]` pages can be as small as 20 (docs/patreon-api-notes.md
 * §2.3), which turns a sync of 100,000 members into 5,000 requests against 100 per minute.
 */
export const MEMBERS_PAGE_COUNT = 1000;
export const MEMBERS_PAGE_COUNT_WITH_PLEDGE_HISTORY = 500;

/** The page-size parameter for a member list with these includes, in a dialect that has one. */
export function memberPageSize(dialect: ServiceDialect, include: readonly string[]): Record<string, string> {
  const name = nameIn(dialect, 'memberPageSize');
  if (name === null) return {};
  return { [name]: String(include.includes('pledge_history') ? MEMBERS_PAGE_COUNT_WITH_PLEDGE_HISTORY : MEMBERS_PAGE_COUNT) };
}

/** The query of one page of a campaign's members in a dialect. */
export function membersQuery(dialect: ServiceDialect, cursor: string | null): URLSearchParams {
  const query = buildQuery({
    include: MEMBERS_INCLUDE,
    fields: { member: memberFields(dialect), tier: tierFields(dialect), user: USER_FIELDS },
    cursor,
  });
  for (const [key, value] of Object.entries(memberPageSize(dialect, MEMBERS_INCLUDE))) query.set(key, value);
  return query;
}

/**
 * Pages of `GET /api/oauth2/v2/campaigns/{id}/members`, one at a time, following
 * `meta.pagination.cursors.next` until an answer has none (spec: Limits). Only one page is held.
 * Whatever page size the service answers with is followed (the guard below scales with it).
 *
 * The service has been seen to answer a new cursor for the same page, which loops forever
 * (docs/patreon-api-notes.md §10). So this throws `pagination_loop` when a cursor comes back,
 * when every member of a page was already seen, or when the page count runs far past what
 * `total` allows; it never loops. Members seen twice on otherwise new pages (the list shifted
 * under us) are dropped from the later page. One odd member never fails a page: it is yielded in
 * `unreadable`. Memory: a set of cursors and one of member ids.
 */
export async function* iterateMemberPages(deps: MembersIteratorDeps, campaignId: string): AsyncGenerator<MemberPage, void, undefined> {
  const path = `/api/oauth2/v2/campaigns/${encodeURIComponent(campaignId)}/members`;
  const seenCursors = new Set<string>();
  const seenMembers = new Set<string>();
  const loop = (message: string): PatreonApiError => new PatreonApiError({ kind: 'pagination_loop', method: 'GET', path, message });
  let cursor: string | null = null;
  let pageNumber = 0;
  let maxPages = Infinity;

  /**
   * One answer read into a page. Apart from the loop so that the answer's parsed document is
   * garbage once its page is made: the generator's frame, which lives while the caller stores
   * the page, holds the page alone.
   */
  const read = (doc: JsonApiDocument, pageNumber: number): { page: MemberPage; next: string | null; size: number } => {
    const where = `${path} page ${pageNumber}`;
    const resources = primaryList(doc, { method: 'GET', path });
    const included = indexIncluded(doc.included);
    const total = paginationTotal(doc);
    // One context for the page's tiers and members, not an object per member.
    const context = { campaignId, where, ...(deps.odd ? { odd: deps.odd } : {}) };

    // A tier whose amount or role ids cannot be read makes its members unreadable, never the page.
    const tiers: Tier[] = [];
    const oddTiers = new Map<string, string>();
    for (const resource of included.ofType('tier')) {
      const reading = readTier(resource, context);
      if (reading.ok) tiers.push(reading.value);
      else oddTiers.set(resource.id, `${reading.error.attribute} ${reading.error.reason}`);
    }

    let repeated = 0;
    const members: Member[] = [];
    const unreadable: UnreadableMember[] = [];
    for (const resource of resources) {
      if (seenMembers.has(resource.id)) {
        repeated += 1;
        continue;
      }
      seenMembers.add(resource.id);
      const read = readMember(resource, included, context);
      const oddTier = read.ok ? read.value.entitledTierIds.find((id) => oddTiers.has(id)) : undefined;
      const reading: MemberReading =
        read.ok && oddTier !== undefined
          ? err({
              memberId: read.value.id,
              campaignId: read.value.campaignId,
              userId: read.value.userId,
              attribute: 'currently_entitled_tiers',
              reason: `name tier ${oddTier}, whose ${oddTiers.get(oddTier)}`,
            })
          : read;
      if (reading.ok) {
        members.push(reading.value);
        continue;
      }
      unreadable.push(reading.error);
      const { memberId, attribute, reason } = reading.error;
      // The caller counts, stores and logs it (once while it stays unreadable).
      deps.logger.debug({ campaignId, memberId, attribute, reason }, 'a member could not be read');
    }
    if (resources.length > 0 && repeated === resources.length) throw loop(`page ${pageNumber} repeats members of an earlier page`);
    if (repeated > 0) deps.logger.warn({ campaignId, pageNumber, repeated }, 'member list repeated some members; skipped them');

    const next = nextCursor(doc);
    if (next !== null && seenCursors.has(next)) throw loop(`page ${pageNumber} answered a cursor that was already used`);
    const users = included.ofType('user').map((u) => parseUser(u, included, where, deps.odd));
    return { page: { members, unreadable, tiers, users, pageNumber, total }, next, size: resources.length };
  };

  for (;;) {
    pageNumber += 1;
    if (pageNumber > maxPages) throw loop(`more than ${maxPages} pages for ${seenMembers.size} members`);
    const pageCursor = cursor;
    const { page, next, size } = read(await deps.getDocument(path, (dialect) => membersQuery(dialect, pageCursor)), pageNumber);
    if (pageNumber === 1) {
      // Generous: pages of at least one member each, twice over, plus slack.
      maxPages = page.total !== null && size > 0 ? Math.ceil(page.total / size) * 2 + 10 : 100_000;
    }
    yield page;
    if (next === null) return;
    seenCursors.add(next);
    cursor = next;
  }
}
