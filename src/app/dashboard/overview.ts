import type { DoctorCheck } from '../admin/doctor';
import type { AuditLogRepository } from '../../edges/outbound/store/repositories/audit-log-repository';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { SyncRunRepository } from '../../edges/outbound/store/repositories/sync-run-repository';
import type { WebhookHealth } from '../webhooks/registration';
import type { Clock } from '../../shared/clock';
import { DAY } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type SyncRun, toSyncRun } from './views';
import type { MemberCounts } from './member-list';

/** The chart covers this many days, today included. */
export const CHART_DAYS = 14;

export interface CampaignSummary {
  id: string;
  name: string;
  url: string | null;
  patronCount: number | null;
  webhook: { registered: boolean; paused: boolean; failures: number; checkedAt: Date | null; manualSecret: boolean };
}

export interface Overview {
  campaigns: CampaignSummary[];
  /** `/doctor`'s checks, problems first, each problem with its fix. */
  checks: DoctorCheck[];
  recentSyncs: SyncRun[];
  /** Applied role changes per UTC day, oldest first, one entry per day of the chart (zeros included). */
  perDay: Array<{ day: string; adds: number; removes: number }>;
  /** Roles Tierlink holds in the server (its ledger). */
  grants: number;
  /** The Members list's counts, from the data of the moment. */
  members: MemberCounts;
  /** The role changes the last full sync that changed anything (not a dry run) made; null: none has run. */
  lastSync: { at: Date; adds: number; removes: number } | null;
}

export interface OverviewDeps {
  guilds: Pick<GuildRepository, 'campaignsOf'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  syncRuns: Pick<SyncRunRepository, 'recent'>;
  auditLog: Pick<AuditLogRepository, 'appliedPerDay'>;
  ledger: Pick<LedgerRepository, 'countInGuild'>;
  members: { counts(guildId: string): Promise<MemberCounts> };
  doctor: { run(guildId: string): Promise<DoctorCheck[]> };
  webhookHealth(campaignId: string): Promise<WebhookHealth>;
  clock: Clock;
  logger: Logger;
}

/** The days of the chart, `YYYY-MM-DD` in UTC, oldest first, ending today. */
export function chartDays(now: Date, days = CHART_DAYS): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY).toISOString().slice(0, 10));
}

export type DayCounts = Array<{ day: string; adds: number; removes: number }>;

/**
 * Applied changes per day for the chart. The log only ever gains rows stamped now, so a day that
 * has ended never changes: its counts are read once per guild and day, and each view reads only
 * today's rows (a short index range) on top.
 */
export function createDayCounts(deps: { auditLog: Pick<AuditLogRepository, 'appliedPerDay'>; clock: Clock }) {
  const past = new Map<string, { today: string; counts: Promise<DayCounts> }>();
  return async function perDay(guildId: string): Promise<DayCounts> {
    const days = chartDays(deps.clock.now());
    const today = days.at(-1)!;
    const todayStart = new Date(`${today}T00:00:00Z`);
    let cached = past.get(guildId);
    if (!cached || cached.today !== today) {
      if (past.size > 500) past.clear();
      cached = { today, counts: deps.auditLog.appliedPerDay(guildId, new Date(`${days[0]}T00:00:00Z`), todayStart) };
      cached.counts.catch(() => past.delete(guildId));
      past.set(guildId, cached);
    }
    const [earlier, now] = await Promise.all([cached.counts, deps.auditLog.appliedPerDay(guildId, todayStart)]);
    const byDay = new Map([...earlier, ...now].map((c) => [c.day, c]));
    return days.map((day) => ({ day, adds: byDay.get(day)?.adds ?? 0, removes: byDay.get(day)?.removes ?? 0 }));
  };
}

/** `/doctor` asks Patreon and Discord: its findings are reused for this long across page views. */
export const CHECKS_TTL_MS = 60_000;

export function createOverview(deps: OverviewDeps): OverviewService {
  const perDay = createDayCounts(deps);
  const checked = new Map<string, { at: number; checks: Promise<DoctorCheck[]> }>();

  function checksOf(guildId: string): Promise<DoctorCheck[]> {
    const now = deps.clock.now().getTime();
    const cached = checked.get(guildId);
    if (cached && now - cached.at < CHECKS_TTL_MS) return cached.checks;
    const checks = deps.doctor.run(guildId).catch((error: unknown): DoctorCheck[] => {
      checked.delete(guildId);
      deps.logger.error({ err: error, guildId }, 'the dashboard could not run the checks');
      return [{ name: 'Checks', ok: false, detail: 'the checks could not run', fix: 'Reload the page; if this repeats, run /doctor.' }];
    });
    if (checked.size > 500) checked.clear();
    checked.set(guildId, { at: now, checks });
    return checks;
  }

  return {
    invalidate(guildId: string): void {
      checked.delete(guildId);
    },

    async of(guildId: string): Promise<Overview> {
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const [campaigns, checks, runs, counts, grants, members] = await Promise.all([
        Promise.all(campaignIds.map((id) => summary(id))),
        checksOf(guildId),
        deps.syncRuns.recent(guildId, 5),
        perDay(guildId),
        deps.ledger.countInGuild(guildId),
        deps.members.counts(guildId),
      ]);
      const last = runs.find((r) => !r.dryRun && r.finishedAt !== null);
      return {
        campaigns: campaigns.filter((c): c is CampaignSummary => c !== null),
        checks: [...checks.filter((c) => !c.ok), ...checks.filter((c) => c.ok)],
        recentSyncs: runs.map(toSyncRun),
        perDay: counts,
        grants,
        members,
        lastSync: last ? { at: last.startedAt, adds: last.appliedAdds, removes: last.appliedRemoves } : null,
      };
    },
  };

  async function summary(campaignId: string): Promise<CampaignSummary | null> {
    const [campaign, health] = await Promise.all([deps.campaigns.get(campaignId), deps.webhookHealth(campaignId)]);
    if (!campaign) return null;
    return {
      id: campaign.id,
      name: campaign.name,
      url: campaign.url,
      patronCount: campaign.patronCount,
      webhook: {
        registered: health.exists,
        paused: health.paused ?? false,
        failures: health.numConsecutiveTimesFailed ?? 0,
        checkedAt: health.checkedAt,
        manualSecret: health.manualSecret,
      },
    };
  }
}

/** The Overview page: the connection, the webhook, the last syncs, changes per day and `/doctor`'s findings. */
export interface OverviewService {
  /** Forgets the cached checks of a guild (after a change on the dashboard). */
  invalidate(guildId: string): void;
  of(guildId: string): Promise<Overview>;
}
