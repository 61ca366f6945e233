import type { Result } from './result';
import { err, ok } from './result';
import type { SettingsFacts } from './settings-problem-text';

/**
 * The last part of a server's join page address, `$PUBLIC_URL/join/<slug>`: chosen with
 * `/settings join_slug:`, else the campaign's vanity (its name in the Patreon address), else the
 * server's id. Slugs are lowercase so that `/join/Lumen` and `/join/lumen` are one page.
 */
export const JOIN_SLUG_LENGTH = { min: 3, max: 32 } as const;

/** Path segments the join routes use themselves: `/join/callback` is Discord's redirect URI. */
export const RESERVED_JOIN_SLUGS: ReadonlySet<string> = new Set(['callback', 'start', 'new', 'admin', 'api', 'static']);

const SLUG = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;

/** Why a slug cannot be used, in words for the creator who typed it. */
export interface SlugProblem {
  message: string;
  /** The same problem as facts, for a reader of another language (src/core/settings-problem-text.ts). */
  facts: Extract<SettingsFacts, { code: `slug_${string}` }>;
}

/**
 * Normalises and checks a slug a creator typed: 3–32 letters, digits, `-` or `_`, starting and
 * ending with a letter or digit, not all digits (digits name a server by id), not a word the
 * routes use. Uniqueness is the store's to check.
 */
export function validateJoinSlug(input: string): Result<string, SlugProblem> {
  const slug = input.trim().toLowerCase();
  const { min, max } = JOIN_SLUG_LENGTH;
  if (slug.length < min || slug.length > max) {
    const got = [...slug].length;
    return err({
      message: `join_slug must be ${min} to ${max} characters long (got ${got}).`,
      facts: { code: 'slug_length', min, max, got },
    });
  }
  if (!SLUG.test(slug)) {
    return err({
      message: 'join_slug may hold only letters a–z, digits, “-” and “_”, and must start and end with a letter or a digit.',
      facts: { code: 'slug_chars' },
    });
  }
  if (/^\d+$/.test(slug))
    return err({ message: 'join_slug must not be all digits: those addresses name a server by its id.', facts: { code: 'slug_digits' } });
  if (RESERVED_JOIN_SLUGS.has(slug))
    return err({ message: `join_slug “${slug}” is reserved by Tierlink; choose another.`, facts: { code: 'slug_reserved', slug } });
  return ok(slug);
}

/** Whether `value` could be a slug at all (a cheap check before any database read of a request path). */
export function looksLikeJoinSlug(value: string): boolean {
  return value.length >= 1 && value.length <= 64 && /^[A-Za-z0-9_-]+$/.test(value);
}

/**
 * The campaign's vanity as its Patreon address shows it (`https://www.patreon.com/<vanity>`), when
 * it makes a valid slug; null for an address without one (`/c/<id>`, `/user?u=…`).
 */
export function vanitySlug(vanity: string | null | undefined): string | null {
  if (!vanity) return null;
  const checked = validateJoinSlug(vanity);
  return checked.ok ? checked.value : null;
}
