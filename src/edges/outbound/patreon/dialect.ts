import { TIER_ROLE_ID_ATTRIBUTES } from '../../../core/tier-roles';
import type { Logger } from '../../../shared/logger';
import type { PatreonApiError } from './errors';

/**
 * The two dialects of the membership service: the generic spec's and Patreon's documented API v2
 * (docs/patreon-api-notes.md §0). They differ in a few names; a name a type does not have is
 * answered with 400, so every request must speak the service's own.
 */
export type ServiceDialect = 'spec' | 'patreon';

export const DIALECTS: readonly ServiceDialect[] = ['spec', 'patreon'];

/** One name that differs: `null` where the dialect has no such thing. */
export interface Rename {
  kind: 'attribute' | 'header' | 'parameter';
  /** The JSON:API type, for attributes. */
  type?: string;
  spec: string | null;
  patreon: string | null;
}

/**
 * Every name that differs between the spec and Patreon, in one place (docs/patreon-api-notes.md
 * §0.1-0.2): requests pick theirs with {@link nameIn}, parsers read either.
 */
export const RENAMES = {
  campaignServer: { kind: 'attribute', type: 'campaign', spec: 'chat_server_id', patreon: 'discord_server_id' },
  campaignAnalytics: { kind: 'attribute', type: 'campaign', spec: 'analytics_id', patreon: 'google_analytics_id' },
  campaignEarningsVisibility: { kind: 'attribute', type: 'campaign', spec: 'earnings_visibility', patreon: null },
  tierRoles: { kind: 'attribute', type: 'tier', spec: TIER_ROLE_ID_ATTRIBUTES[0], patreon: TIER_ROLE_ID_ATTRIBUTES[1] },
  memberFreeTrial: { kind: 'attribute', type: 'member', spec: null, patreon: 'is_free_trial' },
  memberGifted: { kind: 'attribute', type: 'member', spec: null, patreon: 'is_gifted' },
  userIsCreator: { kind: 'attribute', type: 'user', spec: null, patreon: 'is_creator' },
  /** Patreon documents `page[count]` (v1 usage; its own libraries send it on v2); the spec names no page size. */
  memberPageSize: { kind: 'parameter', spec: null, patreon: 'page[count]' },
  signatureHeader: { kind: 'header', spec: 'X-Service-Signature', patreon: 'X-Patreon-Signature' },
  eventHeader: { kind: 'header', spec: null, patreon: 'X-Patreon-Event' },
} as const satisfies Record<string, Rename>;

export type RenameKey = keyof typeof RENAMES;

/** The dialect's name of a renamed thing, or null when the dialect has none. */
export function nameIn(dialect: ServiceDialect, key: RenameKey): string | null {
  return RENAMES[key][dialect];
}

/** The names of `dialect` that the other dialect lacks: asking for one of them may earn a 400. */
export function namesOnlyIn(dialect: ServiceDialect): Set<string> {
  const out = new Set<string>();
  for (const rename of Object.values(RENAMES) as Rename[]) {
    const name = rename[dialect];
    if (name !== null && rename.kind !== 'header') out.add(name);
  }
  return out;
}

const PATREON_HOSTS = new Set(['www.patreon.com', 'patreon.com']);

/** The dialect a base URL implies: Patreon's own host speaks Patreon's; any other host is not known. */
export function dialectOfBaseUrl(baseUrl: string): ServiceDialect | null {
  try {
    return PATREON_HOSTS.has(new URL(baseUrl).hostname.toLowerCase()) ? 'patreon' : null;
  } catch {
    return null;
  }
}

/** The dialect-specific names a query carries (in `fields[...]` values and parameter names). */
export function dialectNamesIn(query: URLSearchParams, dialect: ServiceDialect): string[] {
  const own = namesOnlyIn(dialect);
  const found = new Set<string>();
  for (const [key, value] of query) {
    if (own.has(key)) found.add(key);
    if (key.startsWith('fields[')) for (const name of value.split(',')) if (own.has(name)) found.add(name);
  }
  return [...found];
}

/**
 * Where the learned dialect is kept between processes (the database, in the service). `load`
 * answers null when nothing was learned yet.
 */
export interface DialectStore {
  load(): Promise<ServiceDialect | null>;
  save(dialect: ServiceDialect): Promise<void>;
}

/** Small named values that survive restarts (the database's app state). */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
}

/**
 * The learned dialect kept in a {@link KeyValueStore}, one value per service base URL: pointing
 * `PATREON_BASE_URL` elsewhere learns again instead of trusting what another service spoke.
 */
export function keyValueDialectStore(kv: KeyValueStore, baseUrl: string): DialectStore {
  const key = `service-dialect:${baseUrl.replace(/\/+$/, '')}`;
  return {
    async load() {
      const value = await kv.get<unknown>(key);
      return typeof value === 'string' && (DIALECTS as readonly string[]).includes(value) ? (value as ServiceDialect) : null;
    },
    save: (dialect) => kv.set(key, dialect),
  };
}

/** A store that forgets with the process: the default when none is given. */
export function memoryDialectStore(initial: ServiceDialect | null = null): DialectStore {
  let value = initial;
  return {
    load: async () => value,
    save: async (dialect) => {
      value = dialect;
    },
  };
}

/**
 * How the dialect was decided: `base-url` (Patreon's own host), `stored` (learned earlier),
 * `guess` (nothing known: the spec's is tried), `trying` (the other one, after a 400), `learned`
 * (an answer confirmed it), `settled` (switching did not help: the 400s are about something else).
 */
export type DialectSource = 'base-url' | 'stored' | 'guess' | 'trying' | 'learned' | 'settled';

/**
 * Which dialect to speak, learned once for every client of one service and kept in a
 * {@link DialectStore}, so no later request or process pays a rejected request.
 */
export interface DialectMemory {
  current(): Promise<ServiceDialect>;
  source(): Promise<DialectSource>;
  /** A request in `spoken` that named dialect-specific names was answered: the dialect is confirmed (saved once). */
  confirm(spoken: ServiceDialect): Promise<void>;
  /**
   * A request in `spoken` that named dialect-specific names was answered 400. True when it should
   * be sent again in {@link current} (the other dialect, or one another request switched to).
   */
  rejected(spoken: ServiceDialect, error: PatreonApiError): Promise<boolean>;
  /** The request sent again after {@link rejected} failed as well: back to what was spoken before, for good. */
  retryFailed(spoken: ServiceDialect): Promise<void>;
}

export interface DialectMemoryOptions {
  baseUrl: string;
  store?: DialectStore;
  logger: Logger;
}

const other = (dialect: ServiceDialect): ServiceDialect => (dialect === 'spec' ? 'patreon' : 'spec');

/**
 * The dialect comes from the base URL when it is Patreon's host, else from the store, else the
 * spec's is tried first. A 400 switches to the other dialect when the error names one of the names
 * that was sent only in this dialect (Patreon: "'chat_server_id' is not a valid attribute"), or
 * when the dialect was only a guess (Patreon's 400s do not always name the attribute,
 * docs/patreon-api-notes.md §2.8); the first answer in the new dialect saves it. If the retry is
 * refused too, the 400 was about something else: the earlier dialect is kept and no more blind
 * guessing happens (only a 400 naming one of its names switches again), so a broken request never
 * costs more than one extra rejected request per process (Patreon pauses clients that send many
 * invalid requests, §6).
 */
export function createDialectMemory(options: DialectMemoryOptions): DialectMemory {
  interface State {
    dialect: ServiceDialect;
    source: DialectSource;
    /** While `trying`: what was spoken before the switch. */
    before: { dialect: ServiceDialect; source: DialectSource } | null;
  }
  const store = options.store ?? memoryDialectStore();
  let state: State | null = null;
  let loading: Promise<State> | null = null;

  const load = async (): Promise<State> => {
    if (state) return state;
    loading ??= (async () => {
      const fromUrl = dialectOfBaseUrl(options.baseUrl);
      let stored: ServiceDialect | null = null;
      if (fromUrl === null) {
        try {
          stored = await store.load();
        } catch (error) {
          options.logger.warn({ err: error }, 'could not read the learned service dialect; trying the spec dialect');
        }
      }
      const decided: State =
        fromUrl !== null
          ? { dialect: fromUrl, source: 'base-url', before: null }
          : stored !== null && DIALECTS.includes(stored)
            ? { dialect: stored, source: 'stored', before: null }
            : { dialect: 'spec', source: 'guess', before: null };
      state ??= decided;
      return state;
    })().finally(() => {
      loading = null;
    });
    return loading;
  };

  return {
    current: async () => (await load()).dialect,
    source: async () => (await load()).source,

    async confirm(spoken) {
      const now = await load();
      if (now.dialect !== spoken || (now.source !== 'guess' && now.source !== 'trying')) return;
      state = { dialect: spoken, source: 'learned', before: null };
      options.logger.info({ dialect: spoken }, 'learned the dialect the membership service speaks');
      try {
        await store.save(spoken);
      } catch (error) {
        options.logger.warn({ err: error, dialect: spoken }, 'could not store the learned service dialect');
      }
    },

    async rejected(spoken, error) {
      const now = await load();
      if (now.dialect !== spoken) return true;
      if (now.source === 'base-url' || now.source === 'trying') return false;
      const text = `${error.message} ${JSON.stringify(error.errors)}`;
      const namesOurs = [...namesOnlyIn(spoken)].some((name) => text.includes(name));
      if (!namesOurs && now.source !== 'guess') return false;
      state = { dialect: other(spoken), source: 'trying', before: { dialect: now.dialect, source: now.source } };
      options.logger.info(
        { rejected: spoken, trying: state.dialect, status: error.status },
        'the membership service refused a dialect-specific name; trying the other dialect',
      );
      return true;
    },

    async retryFailed(spoken) {
      const now = await load();
      if (now.dialect !== spoken || now.source !== 'trying' || !now.before) return;
      state = { dialect: now.before.dialect, source: 'settled', before: null };
      options.logger.warn({ dialect: state.dialect }, 'neither dialect was accepted; keeping the earlier one');
    },
  };
}
