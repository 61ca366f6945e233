import { AttributeProblem, AttributeReader } from './attribute-reader';
import { PatreonApiError } from './errors';
import type { Resource } from './json-api';
import { relatedId } from './json-api';

/**
 * A post (docs/patreon-api-notes.md §1.6; scope `campaigns.posts`): what an announcement needs.
 * `tiers` is "the tier ids that the post is locked for if only patrons (or a subset of patrons)
 * can view" and may be null; `is_public` too.
 */
export interface Post {
  id: string;
  campaignId: string | null;
  title: string | null;
  url: string | null;
  isPublic: boolean | null;
  tierIds: string[];
  publishedAt: string | null;
}

/** The post attributes Tierlink asks for: the same names in both dialects. */
export const POST_FIELDS = ['title', 'url', 'is_public', 'tiers', 'published_at'] as const;

/** The most pages of a campaign's posts one poll reads (the docs state no page size or order: §2.6). */
export const MAX_POST_PAGES = 10;

/**
 * Some pages of a campaign's posts, and where reading them picks up next time: the cursor of the
 * page after the last one read when the reading stopped before the end, else the cursor of the
 * last page itself (null when that was the first page). Re-reading the last page finds posts added
 * to its end; reading on from it finds new pages.
 */
export interface PostStretch {
  posts: Post[];
  resume: string | null;
}

/**
 * Only a web address is linked: anything else in `url` is left out of the announcement. Patreon's
 * posts may carry a path (`/posts/…`) rather than a full address (its documentation says only "a
 * URL to access this post"), so a path is resolved against the service's address when there is one.
 */
export function webUrl(value: string | null, base?: string): string | null {
  if (value === null) return null;
  try {
    const url = base ? new URL(value, base) : new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * Reads a post resource (`base`: the service's address, for a `url` that is a path). Strict like every reader: a missing attribute is an `invalid_response`;
 * a title longer than Discord could show is clipped later, not here.
 */
export function parsePost(resource: Resource, where = 'post', base?: string): Post {
  try {
    const r: AttributeReader = new AttributeReader(resource);
    const tiers = r.raw('tiers');
    if (tiers !== null && !(Array.isArray(tiers) && tiers.every((t) => typeof t === 'string' || typeof t === 'number'))) {
      r.fail('tiers', 'a list of tier ids or null');
    }
    const isPublic = r.raw('is_public');
    if (isPublic !== null && typeof isPublic !== 'boolean') r.fail('is_public', 'a boolean or null');
    return {
      id: resource.id,
      campaignId: relatedId(resource, 'campaign') ?? null,
      title: r.nullableString('title'),
      url: webUrl(r.nullableString('url'), base),
      isPublic,
      tierIds: tiers === null ? [] : tiers.map(String),
      publishedAt: r.nullableDate('published_at'),
    };
  } catch (error) {
    if (!(error instanceof AttributeProblem)) throw error;
    throw new PatreonApiError({ kind: 'invalid_response', method: 'PARSE', path: where, message: error.message });
  }
}
