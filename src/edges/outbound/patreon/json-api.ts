import { z } from 'zod';
import { PatreonApiError } from './errors';

/**
 * JSON:API as the service speaks it (spec: rule 2, "Query parameters common to v2"). Attributes
 * and relationships are opt-in in v2 (rule 4), so every request names `fields[<type>]` for each
 * type it reads and exactly the `include` it needs; {@link buildQuery} makes that the only way.
 */

export interface ResourceIdentifier {
  type: string;
  id: string;
}

export interface Resource {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: ResourceIdentifier | ResourceIdentifier[] | null }>;
}

export interface JsonApiDocument {
  data: Resource | Resource[] | null;
  included: Resource[];
  meta: Record<string, unknown>;
  links: Record<string, unknown>;
}

export interface QuerySpec {
  include?: readonly string[];
  fields?: Readonly<Record<string, readonly string[]>>;
  cursor?: string | null;
}

/** `include=a,b&fields[member]=x,y&page[cursor]=…`; URLSearchParams encodes the brackets as %5B/%5D. */
export function buildQuery(spec: QuerySpec): URLSearchParams {
  const params = new URLSearchParams();
  if (spec.include && spec.include.length > 0) params.set('include', spec.include.join(','));
  for (const [type, names] of Object.entries(spec.fields ?? {})) params.set(`fields[${type}]`, names.join(','));
  if (spec.cursor) params.set('page[cursor]', spec.cursor);
  return params;
}

const identifierSchema = z.object({ type: z.string(), id: z.string() });
const resourceSchema = z.object({
  type: z.string(),
  id: z.string(),
  attributes: z.record(z.string(), z.unknown()).optional(),
  relationships: z
    .record(z.string(), z.looseObject({ data: z.union([identifierSchema, z.array(identifierSchema), z.null()]).optional() }))
    .optional(),
});
const documentSchema = z.looseObject({
  data: z.union([resourceSchema, z.array(resourceSchema), z.null()]),
  included: z.array(resourceSchema).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  links: z.record(z.string(), z.unknown()).optional(),
});

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isIdentifier = (v: unknown): boolean => isPlainObject(v) && typeof v.type === 'string' && typeof v.id === 'string';

function isResource(v: unknown): v is Resource {
  if (!isIdentifier(v)) return false;
  const r = v as Record<string, unknown>;
  if (r.attributes !== undefined && !isPlainObject(r.attributes)) return false;
  if (r.relationships === undefined) return true;
  if (!isPlainObject(r.relationships)) return false;
  for (const rel of Object.values(r.relationships)) {
    if (!isPlainObject(rel)) return false;
    const data = rel.data;
    if (data === undefined || data === null || isIdentifier(data)) continue;
    if (!Array.isArray(data) || !data.every(isIdentifier)) return false;
  }
  return true;
}

/**
 * The envelope checked by hand, exactly what {@link documentSchema} accepts or stricter: a page of
 * 1,000 members and their includes is checked in a millisecond instead of some ten (the schema
 * then only explains a body this refuses).
 */
function plainDocument(body: unknown): JsonApiDocument | null {
  if (!isPlainObject(body)) return null;
  const { data, included, meta, links } = body;
  if (!(data === null || (Array.isArray(data) ? data.every(isResource) : isResource(data)))) return null;
  if (included !== undefined && !(Array.isArray(included) && included.every(isResource))) return null;
  if (meta !== undefined && !isPlainObject(meta)) return null;
  if (links !== undefined && !isPlainObject(links)) return null;
  return {
    data: data as Resource | Resource[] | null,
    included: (included as Resource[] | undefined) ?? [],
    meta: (meta as Record<string, unknown> | undefined) ?? {},
    links: (links as Record<string, unknown> | undefined) ?? {},
  };
}

/** Checks the envelope; a body that is not a JSON:API document is an `invalid_response`. */
export function parseDocument(body: unknown, request: { method: string; path: string }): JsonApiDocument {
  const plain = plainDocument(body);
  if (plain) return plain;
  const parsed = documentSchema.safeParse(body);
  if (!parsed.success) {
    throw new PatreonApiError({
      kind: 'invalid_response',
      method: request.method,
      path: request.path,
      message: `not a JSON:API document: ${z.prettifyError(parsed.error)}`,
    });
  }
  const doc = parsed.data;
  return { data: doc.data, included: doc.included ?? [], meta: doc.meta ?? {}, links: doc.links ?? {} };
}

export function primaryList(doc: JsonApiDocument, request: { method: string; path: string }): Resource[] {
  if (Array.isArray(doc.data)) return doc.data;
  throw new PatreonApiError({
    kind: 'invalid_response',
    method: request.method,
    path: request.path,
    message: 'expected a list as primary data',
  });
}

export function primaryOne(doc: JsonApiDocument, request: { method: string; path: string }): Resource {
  if (doc.data !== null && !Array.isArray(doc.data)) return doc.data;
  throw new PatreonApiError({
    kind: 'invalid_response',
    method: request.method,
    path: request.path,
    message: 'expected one resource as primary data',
  });
}

/** `included` indexed by type and id. */
export interface IncludedIndex {
  get(type: string, id: string): Resource | undefined;
  ofType(type: string): Resource[];
}

export function indexIncluded(included: readonly Resource[]): IncludedIndex {
  // By type, then id: a lookup per member makes no key string.
  const byType = new Map<string, { list: Resource[]; byId: Map<string, Resource> }>();
  for (const r of included) {
    let of = byType.get(r.type);
    if (!of) {
      of = { list: [], byId: new Map() };
      byType.set(r.type, of);
    }
    of.byId.set(r.id, r);
    of.list.push(r);
  }
  return {
    get: (type, id) => byType.get(type)?.byId.get(id),
    ofType: (type) => byType.get(type)?.list ?? [],
  };
}

/** Ids of a to-many relationship, or `undefined` when the relationship is not in the resource. */
export function relatedIds(resource: Resource, name: string): string[] | undefined {
  const rel = resource.relationships?.[name];
  if (!rel || rel.data === undefined) return undefined;
  if (rel.data === null) return [];
  return Array.isArray(rel.data) ? rel.data.map((d) => d.id) : [rel.data.id];
}

/** Id of a to-one relationship; `null` when empty, `undefined` when the relationship is absent. */
export function relatedId(resource: Resource, name: string): string | null | undefined {
  const rel = resource.relationships?.[name];
  if (!rel || rel.data === undefined) return undefined;
  if (rel.data === null) return null;
  return Array.isArray(rel.data) ? (rel.data[0]?.id ?? null) : rel.data.id;
}

/** Spec: Limits, "follow meta.pagination.cursors.next until a response carries no next cursor". */
export function nextCursor(doc: JsonApiDocument): string | null {
  const pagination = doc.meta.pagination;
  if (typeof pagination !== 'object' || pagination === null) return null;
  const cursors = (pagination as Record<string, unknown>).cursors;
  if (typeof cursors !== 'object' || cursors === null) return null;
  const next = (cursors as Record<string, unknown>).next;
  return typeof next === 'string' && next !== '' ? next : null;
}

export function paginationTotal(doc: JsonApiDocument): number | null {
  const pagination = doc.meta.pagination;
  if (typeof pagination !== 'object' || pagination === null) return null;
  const total = (pagination as Record<string, unknown>).total;
  return typeof total === 'number' && Number.isFinite(total) ? total : null;
}
