/** The body of `GET /healthz`: `ok` is the database; the other checks are reported, not fatal. */
export interface HealthReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string; [key: string]: unknown }>;
}

export interface HealthChecks {
  database(): Promise<void>;
  gateway(): { ready: boolean; shards?: { held: number[]; count: number | null } };
  creators(): Promise<Array<{ creatorUserId: string; connected: boolean; refreshFailedAt: Date | null; cooldownUntil: Date | null }>>;
  webhooks(): Promise<Array<{ campaignId: string; registered: boolean; paused: boolean; numConsecutiveTimesFailed: number }>>;
}

type CreatorCheck = Awaited<ReturnType<HealthChecks['creators']>>[number];

/** Where the checks read: the database, the gateway, each creator's session, each campaign's webhook. */
export interface HealthSources {
  database: { ping(): Promise<void> };
  gateway: { isReady(): boolean; shards?(): { held: number[]; count: number | null } };
  credentials: { creators(): Promise<string[]> };
  accounts: { sessionForCreator(creatorUserId: string): { status(): Promise<Omit<CreatorCheck, 'creatorUserId'>> } };
  campaigns: { all(): Promise<ReadonlyArray<{ id: string; source?: string }>> };
  registration: {
    health(campaignId: string): Promise<{ exists: boolean; paused: boolean | null; numConsecutiveTimesFailed: number | null }>;
  };
}

export function healthChecks(sources: HealthSources): HealthChecks {
  return {
    database: () => sources.database.ping(),
    gateway: () => ({ ready: sources.gateway.isReady(), ...(sources.gateway.shards ? { shards: sources.gateway.shards() } : {}) }),
    creators: async () =>
      Promise.all(
        (await sources.credentials.creators()).map(async (creatorUserId) => ({
          creatorUserId,
          ...(await sources.accounts.sessionForCreator(creatorUserId).status()),
        })),
      ),
    webhooks: async () =>
      Promise.all(
        (await sources.campaigns.all())
          .filter((c) => (c.source ?? 'patreon') === 'patreon')
          .map(async (c) => {
            const h = await sources.registration.health(c.id);
            return {
              campaignId: c.id,
              registered: h.exists,
              paused: h.paused ?? false,
              numConsecutiveTimesFailed: h.numConsecutiveTimesFailed ?? 0,
            };
          }),
      ),
  };
}

/**
 * `GET /healthz`: 200 while the database answers, 503 when it does not (docs/contract.md). The other
 * parts are reported, not fatal: a paused webhook or a lost gateway is something to look at, and
 * the service still serves links and heals on the next sync.
 */
export async function checkHealth(checks: HealthChecks, timeoutMs = 2000): Promise<HealthReport> {
  const withTimeout = <T>(p: Promise<T>) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
  const report: HealthReport = { ok: true, checks: {} };
  try {
    await withTimeout(checks.database());
    report.checks.database = { ok: true };
  } catch (error) {
    report.ok = false;
    report.checks.database = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    return report;
  }
  const gateway = checks.gateway();
  report.checks.discordGateway = {
    ok: gateway.ready,
    detail: !gateway.ready
      ? 'not connected'
      : gateway.shards && gateway.shards.held.length === 0
        ? 'holds no shard: other instances hold the gateway'
        : 'connected',
    // Several instances share the gateway: which shards this one holds (docs/decisions.md §17).
    ...(gateway.shards ? { shards: gateway.shards.held, shardCount: gateway.shards.count } : {}),
  };
  try {
    const creators = await withTimeout(checks.creators());
    const failing = creators.filter((c) => !c.connected || c.cooldownUntil !== null);
    report.checks.creatorTokens = {
      ok: creators.length > 0 && failing.length === 0,
      detail:
        creators.length === 0
          ? 'no creator connected'
          : failing.length === 0
            ? `${creators.length} connected`
            : `${failing.length} of ${creators.length} failing to refresh`,
    };
  } catch (error) {
    report.checks.creatorTokens = { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
  try {
    const webhooks = await withTimeout(checks.webhooks());
    const unhealthy = webhooks.filter((w) => !w.registered || w.paused || w.numConsecutiveTimesFailed > 0);
    report.checks.webhooks = {
      ok: unhealthy.length === 0,
      detail:
        webhooks.length === 0
          ? 'no campaign served'
          : unhealthy.length === 0
            ? `${webhooks.length} delivering`
            : `${unhealthy.length} of ${webhooks.length} missing, paused or failing`,
      campaigns: webhooks,
    };
  } catch (error) {
    report.checks.webhooks = { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
  return report;
}

/** The public `/healthz`: does the database answer within `timeoutMs`? Nothing else is read. */
export async function databaseAnswers(database: { ping(): Promise<void> }, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([database.ping().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
