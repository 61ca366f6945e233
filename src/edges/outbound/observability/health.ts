import { within } from '../../../shared/within';

/**
 * The body of `GET /healthz`: `ok` is the database and this instance's gateway (every shard it
 * holds has a session, give or take a reconnection); the other checks are reported, not fatal.
 */
export interface HealthReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string; [key: string]: unknown }>;
}

export interface HealthChecks {
  database(): Promise<void>;
  gateway(): { ready: boolean; shards?: { held: number[]; count: number | null }; gaps?: GatewayGap[] };
  creators(): Promise<Array<{ creatorUserId: string; connected: boolean; refreshFailedAt: Date | null; cooldownUntil: Date | null }>>;
  webhooks(): Promise<Array<{ campaignId: string; registered: boolean; paused: boolean; numConsecutiveTimesFailed: number }>>;
}

/** A shard this instance holds without a connected session, and for how long. */
export interface GatewayGap {
  shardId: number;
  forMs: number;
}

/**
 * How long a held shard may be without a session before the instance is not healthy: a session
 * Discord drops comes back (RESUME) within a second or two; one that stays away this long will not
 * by itself, and Tierlink throws it away at 20 s (src/edges/inbound/bot/shard-coordinator.ts).
 */
export const GATEWAY_GAP_GRACE_MS = 10_000;

/** The held shards that have been without a session past the grace. */
export function gatewayFailing(gaps: readonly GatewayGap[] | undefined, graceMs = GATEWAY_GAP_GRACE_MS): GatewayGap[] {
  return (gaps ?? []).filter((g) => g.forMs >= graceMs);
}

type CreatorCheck = Awaited<ReturnType<HealthChecks['creators']>>[number];

/** Where the checks read: the database, the gateway, each creator's session, each campaign's webhook. */
export interface HealthSources {
  database: { ping(): Promise<void> };
  gateway: { isReady(): boolean; shards?(): { held: number[]; count: number | null }; gaps?(): GatewayGap[] };
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
    gateway: () => ({
      ready: sources.gateway.isReady(),
      ...(sources.gateway.shards ? { shards: sources.gateway.shards() } : {}),
      ...(sources.gateway.gaps ? { gaps: sources.gateway.gaps() } : {}),
    }),
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
 * `GET /healthz`: 200 while the database answers and every gateway shard this instance holds has a
 * session, 503 otherwise (docs/contract.md). A shard held without a session is fatal because nothing
 * else answers its commands or restores its rejoining members while the lease says this instance
 * does. The other parts are reported, not fatal: a paused webhook is something to look at, and the
 * service still serves links and heals on the next sync.
 */
export async function checkHealth(checks: HealthChecks, timeoutMs = 2000): Promise<HealthReport> {
  const withTimeout = <T>(p: Promise<T>) =>
    within(p, timeoutMs, (): never => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
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
  const failing = gatewayFailing(gateway.gaps);
  if (failing.length > 0) report.ok = false;
  report.checks.discordGateway = {
    ok: failing.length === 0 && (gateway.gaps !== undefined || gateway.ready),
    detail:
      failing.length > 0
        ? `${failing.map((g) => `shard ${g.shardId} has had no session for ${Math.round(g.forMs / 1000)} s`).join('; ')}: this instance holds ${failing.length === 1 ? 'its lease' : 'their leases'}, so no other instance serves ${failing.length === 1 ? 'it' : 'them'}; Tierlink opens ${failing.length === 1 ? 'it' : 'them'} again or hands ${failing.length === 1 ? 'it' : 'them'} over within 30 s`
        : gateway.gaps === undefined && !gateway.ready
          ? 'not connected'
          : (gateway.gaps?.length ?? 0) > 0 || !gateway.ready
            ? 'connecting'
            : gateway.shards && gateway.shards.held.length === 0
              ? 'holds no shard: other instances hold the gateway'
              : 'connected',
    // Several instances share the gateway: which shards this one holds (docs/decisions.md §17).
    ...(gateway.shards ? { shards: gateway.shards.held, shardCount: gateway.shards.count } : {}),
    ...(failing.length > 0 ? { withoutSession: failing.map((g) => g.shardId) } : {}),
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
  try {
    return await within(
      database.ping().then(() => true as const),
      timeoutMs,
      () => false as const,
    );
  } catch {
    return false;
  }
}
