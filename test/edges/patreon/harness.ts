import { type ManualClock, createManualClock } from '@tierlink/sandbox';
import type { CreatorSession, CreatorTokenStore, OAuthTokens, PatreonClient, RequestInfo, RetryPolicy } from '../../../src/edges/patreon';
import { createCreatorSession, createOAuthClient, createPatreonClient } from '../../../src/edges/patreon';
import type { TierRoleField } from '../../../src/edges/patreon/patreon-client';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import type { Sleep } from '../../../src/shared/clock';
import { silentLogger } from '../../../src/shared/logger';

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
  close(): Promise<void>;
}

export interface HarnessOptions {
  retry?: Partial<RetryPolicy>;
  tierRoleFields?: readonly TierRoleField[];
  sleep?: Sleep;
}

/** A sandbox plus our client wired to it: real HTTP, a manual clock, a recording sleep, jitter pinned to 0.5. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = createManualClock();
  const sb = await createMembershipServiceSandbox({ clock });
  const sleeps: number[] = [];
  const infos: RequestInfo[] = [];
  const sleep: Sleep =
    options.sleep ??
    (async (ms) => {
      sleeps.push(ms);
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
  const oauth = createOAuthClient(common);
  const session = createCreatorSession({ store, refresh: (token) => oauth.refreshToken(token), clock, logger: silentLogger });
  const client = createPatreonClient({ ...common, session, tierRoleFields: options.tierRoleFields, onRequest: (info) => infos.push(info) });
  return { sb, clock, sleeps, infos, store, session, client, close: () => sb.close() };
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
