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
 * Attribute access that fails loudly. A missing attribute means a request forgot to ask for it
 * (v2 returns only what `fields` names), and reading it as null would turn "not asked" into
 * "not a patron" (docs/architecture.md: a failed read never reads as "nobody is a patron"). It throws an
 * {@link AttributeProblem}; whole answers turn that into a `PatreonApiError`, member pages into an
 * unreadable member.
 */
export class AttributeReader {
  private readonly attributes: Record<string, unknown>;

  constructor(private readonly resource: Resource) {
    this.attributes = resource.attributes ?? {};
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
    const at = typeof v === 'string' ? Date.parse(v) : NaN;
    return Number.isNaN(at) ? null : new Date(at).toISOString();
  }

  /** An ISO date, normalised to `toISOString()` form. */
  nullableDate(name: string): string | null {
    const v = this.nullableString(name);
    if (v === null) return null;
    const at = Date.parse(v);
    return Number.isNaN(at) ? this.fail(name, 'a date') : new Date(at).toISOString();
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
