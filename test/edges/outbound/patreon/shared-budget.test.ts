import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type CreatorAccounts, createCreatorAccounts } from '../../../../src/edges/outbound/patreon/creator-accounts';
import type { BudgetLimits } from '../../../../src/edges/outbound/patreon';
import { type Database, openDatabase } from '../../../../src/edges/outbound/store/database';
import { createPostgresPatreonBudgetStore } from '../../../../src/edges/outbound/store/patreon-budget-store';
import { realSleep, systemClock } from '../../../../src/shared/clock';
import { silentLogger } from '../../../../src/shared/logger';
import { repositories } from '../../../support/service-fixtures';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../../support/test-database';

/**
 * Two service instances on one database, each with its own Patreon client, session and request
 * budget, as two processes have: they share Patreon's limits (one budget in the database) and
 * refresh a creator's tokens one at a time. On PostgreSQL the instances have connection pools of
 * their own; on the embedded database (one process in production) they share the one connection.
 * Real time throughout: the stand-in counts as Patreon does, the budget with the database's clock.
 */
let t: TestDatabase;
let second: Database | null = null;
let sb: MembershipServiceSandbox;

/** Patreon's per-token limit in a short window (6 per 2 s instead of 100 per minute) to keep the test short. */
const SMALL: BudgetLimits = {
  perClient: { requests: 100, windowMs: 2_000 },
  perToken: { requests: 6, windowMs: 2_000 },
  interactiveReserve: 1,
};

beforeAll(async () => {
  t = await createTestDatabase();
  if (onPostgres()) second = await openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 4 });
});
afterAll(async () => {
  await second?.close();
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  sb = await createMembershipServiceSandbox({
    rateLimits: { perClient: SMALL.perClient!, perToken: SMALL.perToken! },
    raisedLimits: 'a window of 2 s instead of a minute keeps the test short; the claim is that two instances share whatever the limit is',
  });
});
afterEach(() => sb.close());

/** One instance: its own accounts over `database`, the budget and the refresh lock shared through it. */
function instance(database: Database): CreatorAccounts {
  const repos = repositories(database.db);
  return createCreatorAccounts({
    service: {
      baseUrl: sb.url,
      clientId: sb.clientId,
      clientSecret: sb.clientSecret,
      clock: systemClock,
      sleep: realSleep,
      random: () => 0.5,
      logger: silentLogger,
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    },
    credentials: repos.credentials,
    campaigns: repos.campaigns,
    budgetLimits: { spec: SMALL },
    budgetStore: createPostgresPatreonBudgetStore(database.db),
    refreshLock: (name, refresh) => database.withLock(name, refresh),
  });
}

async function twoInstances(): Promise<{ a: CreatorAccounts; b: CreatorAccounts; creator: string }> {
  const a = instance(t.database);
  const b = instance(second ?? t.database);
  const { creatorUserId } = await a.connect({
    accessToken: sb.creatorTokens.accessToken,
    refreshToken: sb.creatorTokens.refreshToken,
    expiresAt: new Date(Date.now() + 3_600_000),
    scopes: sb.creatorTokens.scopes,
  });
  sb.resetRequests();
  // The connect's identity read went with the patron client's key; let the client's window pass.
  await new Promise((r) => setTimeout(r, 2_100));
  return { a, b, creator: creatorUserId };
}

test('two instances reading at once share the per-token limit: together 6 per window, and Patreon refuses none', async () => {
  const { a, b, creator } = await twoInstances();
  const reads = [a, b].flatMap((accounts) =>
    Array.from({ length: 6 }, () => accounts.clientForCreator(creator).getCampaign(sb.campaignId)),
  );
  const campaigns = await Promise.all(reads);
  expect(campaigns.every((c) => c.campaign.id === sb.campaignId)).toBe(true);
  expect(sb.requests().map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
  // 12 reads under 6 per 2 s: the second six went a window after the first.
  const times = sb.requests().map((r) => Date.parse(r.at));
  expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1_900);
}, 30_000);

test('an expired token is refreshed once for both instances; the second uses the rotated pair and nothing is marked failed', async () => {
  const { a, b, creator } = await twoInstances();
  sb.expireAccessToken(sb.creatorTokens.accessToken);
  const [fromA, fromB] = await Promise.all([
    a.clientForCreator(creator).getCampaign(sb.campaignId),
    b.clientForCreator(creator).getCampaign(sb.campaignId),
  ]);
  expect([fromA.campaign.id, fromB.campaign.id]).toEqual([sb.campaignId, sb.campaignId]);
  const refreshes = sb.requests().filter((r) => r.path === '/api/oauth2/token');
  expect(refreshes.map((r) => r.status)).toEqual([200]);
  for (const accounts of [a, b]) {
    const status = await accounts.sessionForCreator(creator).status();
    expect(status).toMatchObject({ connected: true, refreshFailedAt: null, cooldownUntil: null });
  }
  const stored = await repositories(t.database.db).credentials.status(creator);
  expect(stored?.refreshFailedAt ?? null).toBeNull();
}, 30_000);
