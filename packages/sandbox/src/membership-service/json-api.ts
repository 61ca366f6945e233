import type { Result } from '../support/result';
import { err, ok } from '../support/result';
import type { ServiceDialect } from './dialect';
import type { Store } from './store';
import type { OAuthClientRecord } from './types';

/** What a renderer may read about the caller: scopes gate some attributes (spec: Delivery §3). */
export interface RenderContext {
  store: Store;
  baseUrl: string;
  scopes: ReadonlySet<string>;
  /** The token's user, or null for webhook payloads. */
  userId: string | null;
  client: OAuthClientRecord | null;
}

/** Returned by an attribute getter to leave the attribute out (a scope the caller lacks). */
export const OMIT: unique symbol = Symbol('omit');

export interface Linkage {
  type: string;
  many: boolean;
  ids: string[] | string | null;
}

/** One JSON:API type: its requestable attribute names and how to render a resource of it. */
export interface ResourceType {
  readonly type: string;
  readonly attributeNames: ReadonlySet<string>;
  /** The service no longer knows these names: asking for one is a 400, as for any unknown name, and nothing renders them. */
  retire(names: readonly string[]): void;
  attributes(ctx: RenderContext, id: string, names: readonly string[]): Record<string, unknown>;
  relationship(ctx: RenderContext, id: string, name: string): Linkage;
}

export interface ResourceObject {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | Array<{ type: string; id: string }> | null }>;
}

/** A parsed `include`: relationship name → what to include below it. */
export interface IncludeTree {
  [relationship: string]: IncludeTree;
}

export interface JsonApiQuery {
  fields: ReadonlyMap<string, readonly string[]>;
  include: IncludeTree;
  includePaths: readonly string[];
  cursor: string | null;
  /** `page[count]` (Patreon's dialect only), as given. */
  pageCount: number | null;
}

export interface EndpointShape {
  /** Include paths this endpoint allows (spec: "Top-level includes"; nested ones listed explicitly). */
  allowedIncludes: readonly string[];
  /** List endpoints accept `page[cursor]`. */
  paged: boolean;
}

const FIELDS_PARAM = /^fields\[([^\]]+)\]$/;

/**
 * Reads `include`, `fields[<type>]` and `page[cursor]` (spec: "Query parameters common to v2"),
 * and on paged endpoints of Patreon's dialect `page[count]` (a whole number from 1; the page size
 * is capped by the route). Strict: an unknown type or attribute name, an include the endpoint does
 * not offer, a repeated parameter or any other parameter is a 400 (the spec names no page-size
 * parameter, so its dialect refuses `page[count]`). `URLSearchParams` has already decoded `%5B`/`%5D`.
 */
export function parseJsonApiQuery(
  params: URLSearchParams,
  shape: EndpointShape,
  types: ReadonlyMap<string, ResourceType>,
  dialect: ServiceDialect = 'spec',
): Result<JsonApiQuery, string> {
  const fields = new Map<string, string[]>();
  let include: IncludeTree = {};
  let includePaths: string[] = [];
  let cursor: string | null = null;
  let pageCount: number | null = null;
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (seen.has(key)) return err(`parameter ${key} is given more than once`);
    seen.add(key);
    const fieldsMatch = FIELDS_PARAM.exec(key);
    if (fieldsMatch) {
      const typeName = fieldsMatch[1] ?? '';
      const type = types.get(typeName);
      if (!type) return err(`fields[${typeName}]: unknown resource type`);
      const names = value === '' ? [] : value.split(',').map((n) => n.trim());
      for (const name of names) {
        if (!type.attributeNames.has(name)) return err(`fields[${typeName}]: unknown attribute '${name}'`);
      }
      fields.set(typeName, names);
    } else if (key === 'include') {
      includePaths = value === '' ? [] : value.split(',').map((p) => p.trim());
      for (const path of includePaths) {
        if (!shape.allowedIncludes.includes(path)) return err(`include: '${path}' is not an allowed include here`);
      }
      include = toTree(includePaths);
    } else if (key === 'page[cursor]' && shape.paged) {
      if (value === '') return err('page[cursor] is empty');
      cursor = value;
    } else if (key === 'page[count]' && shape.paged && dialect === 'patreon') {
      if (!/^[1-9][0-9]{0,8}$/.test(value)) return err(`page[count] must be a whole number from 1 (got '${value}')`);
      pageCount = Number(value);
    } else {
      return err(`unknown query parameter ${key}`);
    }
  }
  return ok({ fields, include, includePaths, cursor, pageCount });
}

function toTree(paths: readonly string[]): IncludeTree {
  const root: IncludeTree = {};
  for (const path of paths) {
    let node = root;
    for (const part of path.split('.')) {
      node[part] ??= {};
      node = node[part];
    }
  }
  return root;
}

/**
 * Renders primary resources with sparse fieldsets: attributes only for types named in `fields`,
 * relationships only for names in `include`, `included` deduplicated by type and id and never
 * repeating primary data (spec: rule 4 and "Query parameters common to v2").
 */
export function renderDocument(
  ctx: RenderContext,
  types: ReadonlyMap<string, ResourceType>,
  query: Pick<JsonApiQuery, 'fields' | 'include'>,
  primary: { type: string; ids: readonly string[]; single: boolean },
): { data: ResourceObject | ResourceObject[] | null; included: ResourceObject[] } {
  const seen = new Set<string>();
  for (const id of primary.ids) seen.add(`${primary.type}:${id}`);
  const included: ResourceObject[] = [];

  const render = (typeName: string, id: string, tree: IncludeTree): ResourceObject => {
    const type = types.get(typeName);
    if (!type) throw new Error(`no renderer for type ${typeName}`);
    const resource: ResourceObject = { type: typeName, id };
    const names = query.fields.get(typeName);
    if (names) resource.attributes = type.attributes(ctx, id, names);
    const relNames = Object.keys(tree);
    if (relNames.length > 0) {
      const relationships: NonNullable<ResourceObject['relationships']> = {};
      for (const rel of relNames) {
        const link = type.relationship(ctx, id, rel);
        const ids = link.ids === null ? [] : Array.isArray(link.ids) ? link.ids : [link.ids];
        relationships[rel] = {
          data: link.many
            ? ids.map((target) => ({ type: link.type, id: target }))
            : typeof link.ids === 'string'
              ? { type: link.type, id: link.ids }
              : null,
        };
        for (const target of ids) {
          const key = `${link.type}:${target}`;
          if (seen.has(key)) continue;
          seen.add(key);
          included.push(render(link.type, target, tree[rel] ?? {}));
        }
      }
      resource.relationships = relationships;
    }
    return resource;
  };

  const rendered = primary.ids.map((id) => render(primary.type, id, query.include));
  const data = primary.single ? (rendered[0] ?? null) : rendered;
  return { data, included };
}

/** Builds a {@link ResourceType} from typed getters, so each type's record stays typed. */
export function defineType<R>(def: {
  type: string;
  find: (ctx: RenderContext, id: string) => R | undefined;
  attributes: Readonly<Record<string, (record: R, ctx: RenderContext) => unknown>>;
  /** Names that may be requested but that this sandbox never has data for (rendered as null). */
  unservedAttributes?: readonly string[];
  relationships?: Readonly<
    Record<string, { type: string; many: boolean; get: (record: R, ctx: RenderContext) => string[] | string | null }>
  >;
}): ResourceType {
  const attributeNames = new Set([...Object.keys(def.attributes), ...(def.unservedAttributes ?? [])]);
  return {
    type: def.type,
    attributeNames,
    retire(names) {
      for (const name of names) attributeNames.delete(name);
    },
    attributes(ctx, id, names) {
      const record = def.find(ctx, id);
      const out: Record<string, unknown> = {};
      if (record === undefined) return out;
      const overrides = ctx.store.attributeOverrides.size > 0 ? ctx.store.attributeOverrides.get(`${def.type}:${id}`) : undefined;
      const omitted = ctx.store.omittedAttributes.size > 0 ? ctx.store.omittedAttributes.get(`${def.type}:${id}`) : undefined;
      for (const name of names) {
        if (!attributeNames.has(name) || omitted?.has(name)) continue;
        if (overrides && name in overrides) {
          out[name] = overrides[name];
          continue;
        }
        const getter = def.attributes[name];
        const value = getter ? getter(record, ctx) : null;
        if (value !== OMIT) out[name] = value;
      }
      return out;
    },
    relationship(ctx, id, name) {
      const rel = def.relationships?.[name];
      if (!rel) throw new Error(`type ${def.type} has no relationship ${name}`);
      const record = def.find(ctx, id);
      return { type: rel.type, many: rel.many, ids: record === undefined ? (rel.many ? [] : null) : rel.get(record, ctx) };
    },
  };
}

/** A spec type the sandbox never stores: its names are valid in `fields[...]`, nothing renders. */
export function namesOnlyType(type: string, names: readonly string[]): ResourceType {
  return defineType<never>({ type, find: () => undefined, attributes: {}, unservedAttributes: names });
}

export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
