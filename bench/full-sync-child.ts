/**
 * The measured side of the full-sync benchmark (bench/full-sync.ts): a process of its own, so its
 * CPU time and peak RSS are Tierlink's alone, not the stand-ins' holding 100,000 members. It wires
 * the services as `npm run sync` does (src/compose.ts: embedded PGlite on disk or PostgreSQL,
 * @discordjs/rest, the Patreon client), against the stand-ins the parent started, runs one sync,
 * and prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import { type PerformanceEntry, PerformanceObserver, constants } from 'node:perf_hooks';
import { storeCampaign } from '../src/app/admin/campaign-catalog';
import { openDatabase } from '../src/edges/outbound/store/database';
import { systemClock } from '../src/shared/clock';
import { silentLogger } from '../src/shared/logger';
import { runCommand } from '../src/cli/cli-support';
import type { SyncChange } from '../src/core/sync-report';
import { buildServices } from '../src/compose';
import { parseConfig } from '../src/config';

/** What the parent passes (argv[2], JSON). */
export interface ChildInput {
  /**
   * `setup`: create the embedded database (initdb, migrations), connect the creator, bind the guild.
   * `sync`: open that database as an instance that has been running for a while would have it, and
   * run one full sync. Two processes, because creating a PGlite database is a one-time cost (its
   * initdb alone peaks near 900 MB) that a nightly sync never pays.
   */
  mode: 'setup' | 'sync';
  dataDir: string;
  /** A PostgreSQL database to use instead of the embedded one in `dataDir`. */
  postgresUrl?: string;
  secretKey: string;
  patreon: {
    url: string;
    clientId: string;
    clientSecret: string;
    accessToken: string;
    refreshToken: string;
    expiresIn: number;
    scopes: string[];
  };
  discord: { apiBaseUrl: string; botToken: string; botUserId: string; globalRequestsPerSecond: number };
  /** The stand-ins' environment (`standInEnvironment`): the service's configuration, with `secretKey` and the database. */
  environment: Record<string, string>;
  guildId: string;
  campaignId: string;
  /** The stand-in counts nothing (its raise names why): Tierlink's own pacing to Patreon off too. */
  patreonUnpaced: boolean;
  concurrency: number;
  /** Run a second sync right after the first. */
  secondRun: boolean;
}

/** Statements the sync sent to the database, by kind (their first words), and the wall time they took. */
export interface StatementStats {
  count: number;
  ms: number;
  /** Statements that wrote member snapshots (insert or update). */
  snapshotWrites: number;
  /** The kinds that took the most time. */
  top: Array<{ kind: string; count: number; ms: number }>;
}

/** Milliseconds of garbage-collection pauses: young generation (scavenges) and the rest (marking, compaction). */
export interface GcTimes {
  minorMs: number;
  majorMs: number;
  count: number;
}

/** Sums the process's GC pauses from now until `take` (performance entries of type `gc`). */
function gcMeter(): { take(): GcTimes } {
  let times: GcTimes = { minorMs: 0, majorMs: 0, count: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) times.minorMs += entry.duration;
      else times.majorMs += entry.duration;
      times.count += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take() {
      const out = { minorMs: Math.round(times.minorMs), majorMs: Math.round(times.majorMs), count: times.count };
      times = { minorMs: 0, majorMs: 0, count: 0 };
      return out;
    },
  };
}

/** What the child prints (one JSON line prefixed with {@link RESULT_PREFIX}). */
export interface ChildResult {
  statements: StatementStats;
  wallMs: number;
  rateLimitWaitMs: number;
  busyMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** Highest RSS sampled every 25 ms during the run. */
  peakRssSampledBytes: number;
  /** The kernel's high-water mark of the whole child up to the end of the first run (opening the database included). */
  vmHwmBytes: number | null;
  rssBeforeBytes: number;
  /** Highest V8 heap in use sampled during the run: the sync's own objects (PGlite's memory is outside it). */
  peakHeapUsedBytes: number;
  /** Garbage collection's pauses during the run, by kind (absent from builds before this figure). */
  gc?: GcTimes;
  /** `process.memoryUsage()` when RSS peaked. */
  atPeak: { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  apiCalls: Record<string, number>;
  status: string;
  /** A second sync right after the first: the steady state of a nightly run. */
  secondRun: {
    wallMs: number;
    cpuMs: number;
    apiCalls: Record<string, number>;
    plannedChanges: number;
    changes: SyncChange[];
    statements: StatementStats;
    gc?: GcTimes;
  };
  /** Requests the stand-ins logged after this belong to the second run. */
  firstRunFinishedAt: string;
  campaign: { pages: number; members: number; linksMade: number } | null;
  guild: {
    discordPages: number;
    members: number;
    linked: number;
    usersPlanned: number;
    planned: { adds: number; removes: number; forgets: number; blocked: number };
    applied: { adds: number; removes: number; forgets: number };
    failed: number;
  } | null;
}

export const RESULT_PREFIX = 'FULL_SYNC_BENCH_RESULT ';

function vmHwm(): number | null {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** `insert into member_snapshots as s (…` → `insert into member_snapshots`: what a statement does, without its values. */
function statementKind(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\(.*$/, '').split(' ').slice(0, 6).join(' ').replace(/"/g, '').slice(0, 60);
}

function statementCounter() {
  let kinds = new Map<string, { count: number; ms: number }>();
  let snapshotWrites = 0;
  return {
    observe(text: string, ms: number) {
      if (/(insert into|update) "?member_snapshots"?[\s(]/i.test(text)) snapshotWrites += 1;
      const kind = statementKind(text);
      const k = kinds.get(kind) ?? { count: 0, ms: 0 };
      k.count += 1;
      k.ms += ms;
      kinds.set(kind, k);
    },
    take(): StatementStats {
      const all = [...kinds].map(([kind, v]) => ({ kind, count: v.count, ms: Math.round(v.ms) }));
      kinds = new Map();
      const writes = snapshotWrites;
      snapshotWrites = 0;
      return {
        snapshotWrites: writes,
        count: all.reduce((sum, k) => sum + k.count, 0),
        ms: all.reduce((sum, k) => sum + k.ms, 0),
        top: all.sort((a, b) => b.ms - a.ms).slice(0, 8),
      };
    },
  };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ChildInput;
  const statements = statementCounter();
  const database = input.postgresUrl
    ? await openDatabase({ engine: 'postgres', url: input.postgresUrl, logger: silentLogger, onQuery: statements.observe })
    : await openDatabase({ engine: 'pglite', dataDir: input.dataDir, logger: silentLogger, onQuery: statements.observe });
  try {
    if (input.mode === 'setup') await database.migrate();
    const clock = systemClock;
    const config = parseConfig({
      ...input.environment,
      SECRET_KEY: input.secretKey,
      DATA_DIR: input.dataDir,
      ...(input.postgresUrl ? { DATABASE_URL: input.postgresUrl } : {}),
    });
    if (!config.ok) throw config.error;
    // The services as `npm run sync` builds them (src/compose.ts): the request budgets shared through
    // PostgreSQL as the service counts them, the sync's meter; only the stand-ins' raised pace is the bench's.
    const services = buildServices(
      {
        config: config.value,
        logger: silentLogger,
        clock,
        discordAccess: { botUserId: input.discord.botUserId, rest: { globalRequestsPerSecond: input.discord.globalRequestsPerSecond } },
        ...(input.patreonUnpaced ? { patreonLimits: { spec: null, patreon: null } } : {}),
        syncTuning: { concurrency: input.concurrency },
      },
      database,
    );
    const { repos, accounts } = services;

    if (input.mode === 'setup') {
      // What `/connect` and start-up did long before the night of the sync.
      const connected = await accounts.connect({
        accessToken: input.patreon.accessToken,
        refreshToken: input.patreon.refreshToken,
        expiresAt: new Date(Date.now() + input.patreon.expiresIn * 1000),
        scopes: input.patreon.scopes,
      });
      await storeCampaign(
        { campaigns: repos.campaigns, clock },
        connected.creatorUserId,
        await connected.client.getCampaign(input.campaignId),
      );
      await repos.guilds.ensure(input.guildId, 'Bench');
      await repos.guilds.bind(input.guildId, input.campaignId);
      process.stdout.write(`${RESULT_PREFIX}{}\n`);
      return;
    }

    const { fullSync } = services.sync;

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    let peakHeap = process.memoryUsage().heapUsed;
    let atPeak = process.memoryUsage();
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      if (usage.rss > peak) {
        peak = usage.rss;
        atPeak = usage;
      }
      peakHeap = Math.max(peakHeap, usage.heapUsed);
    }, 25);
    statements.take();
    const gc = gcMeter();
    const cpuStart = process.cpuUsage();
    const report = await fullSync.run({ trigger: 'cli' });
    const cpu = process.cpuUsage(cpuStart);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const hwm = vmHwm();
    const firstStatements = statements.take();
    const firstGc = gc.take();

    // The nightly case: nothing changed since. Measured after the figures above were taken.
    const againCpuStart = process.cpuUsage();
    const again = input.secondRun ? await fullSync.run({ trigger: 'cli' }) : null;
    const againCpu = process.cpuUsage(againCpuStart);
    const againStatements = statements.take();
    const againGc = gc.take();
    const againGuild = again?.guilds[0];

    const campaign = report.campaigns[0];
    const guild = report.guilds[0];
    const result: ChildResult = {
      statements: firstStatements,
      wallMs: report.timing.wallMs,
      rateLimitWaitMs: report.timing.rateLimitWaitMs,
      busyMs: report.timing.busyMs,
      cpuUserMs: Math.round(cpu.user / 1000),
      cpuSystemMs: Math.round(cpu.system / 1000),
      peakRssSampledBytes: peak,
      vmHwmBytes: hwm,
      rssBeforeBytes: rssBefore,
      peakHeapUsedBytes: peakHeap,
      gc: firstGc,
      atPeak: { heapTotal: atPeak.heapTotal, heapUsed: atPeak.heapUsed, external: atPeak.external, arrayBuffers: atPeak.arrayBuffers },
      apiCalls: report.apiCalls,
      status: report.status,
      secondRun: {
        wallMs: again?.timing.wallMs ?? 0,
        cpuMs: Math.round((againCpu.user + againCpu.system) / 1000),
        apiCalls: again?.apiCalls ?? {},
        plannedChanges: againGuild ? againGuild.planned.adds + againGuild.planned.removes + againGuild.planned.forgets : 0,
        changes: (againGuild?.changes ?? []).slice(0, 5),
        statements: againStatements,
        gc: againGc,
      },
      firstRunFinishedAt: report.finishedAt,
      campaign: campaign ? { pages: campaign.pages, members: campaign.members, linksMade: campaign.linksMade } : null,
      guild: guild
        ? {
            discordPages: guild.discord.pages,
            members: guild.discord.members,
            linked: guild.linkedMembers,
            usersPlanned: guild.usersPlanned,
            planned: guild.planned,
            applied: guild.applied,
            failed: guild.failed,
          }
        : null,
    };
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
    await services.discordBudget?.close?.();
  } finally {
    await database.close();
  }
}

if (require.main === module) {
  runCommand('the full-sync benchmark', main, (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
