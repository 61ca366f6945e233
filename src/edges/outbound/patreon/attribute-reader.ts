import { isoInstant } from './iso-instant';
import type { Resource } from './json-api';

/** One attribute of one resource that could not be read: what, and why. */
export class AttributeProblem extends Error {
  constructor(
    readonly resource: Resource,
    readonly attribute: string,
    readonly reason: string,
  ) {
    super(`${resource.type} ${resource.id}: ${attribute} ${reason}`);
    this.name = 'AttributeProblem';
  }
}

/**
 * A value Patreon answered oddly on a resource that still reads: null or missing where its
 * documentation promises a value, or of another kind, on an attribute that only labels (a tier's
 * title, a user's name). Tolerated and reported (`/doctor`), never a failure.
 */
export interface OddValue {
  /** The resource's type and id: `tier`, `5000101`. */
  type: string;
  id: string;
  attribute: string;
  /** `null`, `missing`, or a short description of what came. */
  found: string;
}

/** Where odd values go (the client's `onOddValue`). */
export type OddValueSink = (odd: OddValue) => void;

/**
 * Attribute access that fails loudly. A missing attribute means a request forgot to ask for it
 * (v2 returns only what `fields` names), and reading it as null would turn "not asked" into
 * "not a patron" (docs/architecture.md: a failed read never reads as "nobody is a patron"). It throws an
 * {@link AttributeProblem}; whole answers turn that into a `PatreonApiError`, member pages into an
 * unreadable member.
 */
export class AttributeReader {
  private readonly attributes: Record<string, unknown>;

  /** `odd`: where the lenient readers report a value they had to replace. */
  constructor(
    private readonly resource: Resource,
    private readonly odd?: OddValueSink,
  ) {
    this.attributes = resource.attributes ?? {};
  }

  /** Reports `name` as odd (null, missing, or what it was instead) and answers `fallback`. */
  replaced<T>(name: string, fallback: T): T {
    const found = !(name in this.attributes) ? 'missing' : this.attributes[name] === null ? 'null' : describeValue(this.attributes[name]);
    this.odd?.({ type: this.resource.type, id: this.resource.id, attribute: name, found });
    return fallback;
  }

  /** A string that only labels: `fallback` (reported) when it is not one. */
  label(name: string, fallback: string): string {
    const v = this.attributes[name];
    return typeof v === 'string' ? v : this.replaced(name, fallback);
  }

  /** A boolean that decides nothing on its own: `fallback` (reported) when it is not one. */
  flag(name: string, fallback: boolean): boolean {
    const v = this.attributes[name];
    return typeof v === 'boolean' ? v : this.replaced(name, fallback);
  }

  /** A count that only informs: null when absent or null, null (reported) when it is not a number. */
  count(name: string): number | null {
    const v = this.attributes[name];
    if (v === undefined || v === null) return null;
    return typeof v === 'number' && Number.isFinite(v) ? v : this.replaced(name, null);
  }

  fail(name: string, expected: string): never {
    const value = this.attributes[name];
    const reason = !(name in this.attributes)
      ? 'is missing'
      : value === null
        ? `is null, expected ${expected}`
        : `is ${describeValue(value)}, expected ${expected}`;
    throw new AttributeProblem(this.resource, name, reason);
  }

  has(name: string): boolean {
    return name in this.attributes;
  }

  raw(name: string): unknown {
    if (!(name in this.attributes)) this.fail(name, 'present');
    return this.attributes[name];
  }

  string(name: string): string {
    const v = this.raw(name);
    return typeof v === 'string' ? v : this.fail(name, 'a string');
  }

  nullableString(name: string): string | null {
    const v = this.raw(name);
    return v === null || typeof v === 'string' ? v : this.fail(name, 'a string or null');
  }

  boolean(name: string): boolean {
    const v = this.raw(name);
    return typeof v === 'boolean' ? v : this.fail(name, 'a boolean');
  }

  /** A boolean the service may not have at all (the other dialect's): false when absent. */
  optionalBoolean(name: string): boolean {
    return this.has(name) ? this.boolean(name) : false;
  }

  integer(name: string): number {
    const v = this.raw(name);
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(name, 'a number');
  }

  optionalInteger(name: string): number | null {
    if (!this.has(name)) return null;
    const v = this.attributes[name];
    return v === null ? null : typeof v === 'number' && Number.isFinite(v) ? v : this.fail(name, 'a number or null');
  }

  /** A value that decides nothing: read when it is what it should be, else null (never a failure). */
  lenientInteger(name: string): number | null {
    const v = this.attributes[name];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  }

  lenientString(name: string): string | null {
    const v = this.attributes[name];
    return typeof v === 'string' ? v : null;
  }

  lenientDate(name: string): string | null {
    const v = this.attributes[name];
    return typeof v === 'string' ? isoInstant(v) : null;
  }

  /** An ISO date, normalised to `toISOString()` form. */
  nullableDate(name: string): string | null {
    const v = this.nullableString(name);
    if (v === null) return null;
    return isoInstant(v) ?? this.fail(name, 'a date');
  }

  oneOf<T extends string>(name: string, allowed: readonly string[]): T | null {
    const v = this.nullableString(name);
    if (v === null) return null;
    return allowed.includes(v) ? (v as T) : this.fail(name, `one of ${allowed.join(', ')}`);
  }

  /** The first of `names` the answer carries (each dialect's name of one thing), as a nullable string. */
  nullableStringOfEither(names: readonly string[]): string | null {
    const name = names.find((n) => this.has(n));
    return name === undefined ? this.fail(names.join(' / '), 'present') : this.nullableString(name);
  }
}

/** A short, bounded description of an odd value for logs: `"paused_patron"`, `42`, `an object`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'a list' : `a${typeof value === 'object' ? 'n object' : ` ${typeof value}`}`;
}
