import { type ManualClock, createManualClock } from '@tierlink/sandbox';
import type {
  BudgetLimits,
  CreatorSession,
  CreatorTokenStore,
  DialectMemory,
  DialectStore,
  OAuthTokens,
  PatreonClient,
  RequestBudget,
  RequestInfo,
  RetryPolicy,
  ServiceDialect,
} from '../../../../src/edges/outbound/patreon';
import {
  createCreatorSession,
  createDialectMemory,
  createOAuthClient,
  createPatreonClient,
  createRequestBudget,
  memoryDialectStore,
} from '../../../../src/edges/outbound/patreon';
import type { MembershipServiceSandbox, MembershipServiceSandboxOptions } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import type { Sleep } from '../../../../src/shared/clock';
import type { OddValueSink } from '../../../../src/edges/outbound/patreon/attribute-reader';
import { silentLogger } from '../../../../src/shared/logger';

/** An in-memory creator token store that remembers every save. */
export interface MemoryTokenStore extends CreatorTokenStore {
  saves: OAuthTokens[];
  current(): OAuthTokens | null;
  set(tokens: OAuthTokens): void;
  /** Called inside save(), before it returns: lets a test look at the world at save time. */
  onSave?: (tokens: OAuthTokens) => void;
}

export function memoryTokenStore(initial: OAuthTokens | null): MemoryTokenStore {
  let tokens = initial;
  const store: MemoryTokenStore = {
    saves: [],
    current: () => tokens,
    set: (next) => {
      tokens = next;
    },
    load: async () => tokens,
    save: async (next) => {
      store.onSave?.(next);
      store.saves.push(next);
      tokens = next;
    },
  };
  return store;
}

export interface Harness {
  sb: MembershipServiceSandbox;
  clock: ManualClock;
  /** Every wait the client asked for, in ms; the sleep returns at once. */
  sleeps: number[];
  infos: RequestInfo[];
  store: MemoryTokenStore;
  session: CreatorSession;
  client: PatreonClient;
  dialect: DialectMemory;
  dialectStore: DialectStore;
  budget: RequestBudget;
  /** Another client of the same service (a second process): its own memory and budget, the same dialect store. */
  secondClient(): PatreonClient;
  close(): Promise<void>;
}

export interface HarnessOptions {
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  /** The recording sleep moves the manual clock on by what it was asked (for pacing, which waits for time to pass). */
  sleepAdvancesClock?: boolean;
  /** The stand-in's options (its dialect, rate limits, page size…); the manual clock is always passed. */
  sandbox?: Omit<MembershipServiceSandboxOptions, 'clock'>;
  /** What the dialect store holds at start (a dialect learned by an earlier process). */
  storedDialect?: ServiceDialect | null;
  budgetLimits?: Partial<Record<ServiceDialect, BudgetLimits | null>>;
  /** Told of each odd value the client tolerated. */
  onOddValue?: OddValueSink;
}

/** A sandbox plus our client wired to it: real HTTP, a manual clock, a recording sleep, jitter pinned to 0.5. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = createManualClock();
  const sb = await createMembershipServiceSandbox({ ...options.sandbox, clock });
  const sleeps: number[] = [];
  const infos: RequestInfo[] = [];
  const sleep: Sleep =
    options.sleep ??
    (async (ms) => {
      sleeps.push(ms);
      if (options.sleepAdvancesClock) clock.advance(ms);
    });
  const random = (): number => 0.5;
  const store = memoryTokenStore({
    accessToken: sb.creatorTokens.accessToken,
    refreshToken: sb.creatorTokens.refreshToken,
    expiresAt: new Date(clock.now().getTime() + sb.creatorTokens.expiresIn * 1000),
    scopes: sb.creatorTokens.scopes,
  });
  const common = {
    baseUrl: sb.url,
    clientId: sb.clientId,
    clientSecret: sb.clientSecret,
    clock,
    sleep,
    random,
    logger: silentLogger,
    retry: options.retry,
  };
  const dialectStore = memoryDialectStore(options.storedDialect ?? null);
  const wire = () => {
    const dialect = createDialectMemory({ baseUrl: sb.url, store: dialectStore, logger: silentLogger });
    const budget = createRequestBudget({ clock, sleep, dialect, ...(options.budgetLimits ? { limits: options.budgetLimits } : {}) });
    const oauth = createOAuthClient({ ...common, budget });
    const session = createCreatorSession({ store, refresh: (token) => oauth.refreshToken(token), clock, logger: silentLogger });
    const client = createPatreonClient({
      ...common,
      session,
      dialect,
      budget,
      onRequest: (info) => infos.push(info),
      ...(options.onOddValue ? { onOddValue: options.onOddValue } : {}),
    });
    return { dialect, budget, session, client };
  };
  const first = wire();
  return { sb, clock, sleeps, infos, store, ...first, dialectStore, secondClient: () => wire().client, close: () => sb.close() };
}

/** Lists every member of a campaign through the client, page by page. */
export async function listAll(client: PatreonClient, campaignId: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  for await (const page of client.listMembers(campaignId)) {
    pages += 1;
    for (const m of page.members) ids.push(m.id);
  }
  return { ids, pages };
}
