import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import { packageRoot } from '../src/edges/outbound/store/package-root';
import { createScratchPostgres } from './scratch-database';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createShiftableClock, standInEnvironment } from '@tierlink/sandbox';
import { type ChildInput, type ChildResult, type GcTimes, RESULT_PREFIX, type StatementStats } from './full-sync-child';

export interface FullSyncBenchmarkOptions {
  /**
   * The dialect the membership stand-in speaks: the spec's (default) or Patreon's documented one,
   * with its `page[count]`, its names and its published rate limits (100 requests per minute per
   * token, which Tierlink's request budget paces to: 100 pages take over a minute of waiting).
   */
  dialect?: 'spec' | 'patreon';
  /** Run a second sync right after the first (the nightly steady state). Default true. */
  secondRun?: boolean;
  campaignMembers?: number;
  linked?: number;
  /**
   * Generated guild members. The owner and the bot make two more: 29,997 gives a guild of 29,999,
   * which Discord lists in 30 pages of 1,000; a guild of exactly 30,000 needs a 31st request that
   * answers an empty page, since a full page never says it is the last.
   */
  guildMembers?: number;
  /**
   * Discord's global limit for the run (requests per second, the stand-in's and @discordjs/rest's).
   * Discord's own is 50 (docs/tech-facts.md §1); at 50 the ~12,700 role writes wait about four
   * minutes, all of it excluded from the busy time. Default 2,000: the figures are the same, sooner.
   */
  discordRequestsPerSecond?: number;
  concurrency?: number;
  /** Node flags for the measured process; those of `npm start` when absent (e.g. add `--cpu-prof` to profile). */
  childExecArgv?: string[];
  /** A PostgreSQL server whose user may create databases: the sync runs on a scratch database there instead of PGlite. */
  postgresUrl?: string;
  /** Only the figures of the second run (the idle sync) and what it read. */
  idleOnly?: boolean;
  /**
   * Another built checkout of Tierlink (its root, holding `dist/bench/full-sync-child.js` and its
   * `package.json`) whose code does the setup and the measured sync, under the same stand-ins and
   * figures: today's commit beside this one in one run (BENCH_BASELINE_DIR of `npm run bench`).
   */
  checkout?: string;
  /** Put before every row's name (which checkout measured it). */
  label?: string;
}

/**
 * Discord's member-role bucket: 10 requests per 10 s per server (docs/discord-api-notes.md §6),
 * what a sync's role changes take at the least under Discord's real limits, whatever Tierlink does.
 */
const MEMBER_ROLE_PER_SECOND = 1;
/** Discord's global limit per bot (docs/tech-facts.md §1). */
const GLOBAL_PER_SECOND = 50;

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

type Row = { name: string; value: string; goal?: string };

/** The run's garbage-collection pauses (part of its CPU time), when the checkout's child measured them. */
function gcRows(label: string, gc: GcTimes | undefined): Row[] {
  if (!gc) return [];
  const ms = (v: number) => `${(v / 1000).toFixed(2)} s`;
  return [
    {
      name: `${label}: garbage collection: young generation / the rest (pauses)`,
      value: `${ms(gc.minorMs)} / ${ms(gc.majorMs)} (${gc.count})`,
    },
  ];
}

/** The node flags `npm start` runs the service with (package.json), so the figures are the service's. */
function startFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = manifest.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((w) => w.startsWith('--'));
}

const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function statementRows(label: string, stats: StatementStats): Row[] {
  return [
    { name: `${label}: database statements / their wall time`, value: `${stats.count} / ${s(stats.ms)}` },
    ...stats.top.map((k) => ({ name: `${label}: … ${k.kind}`, value: `${k.count} / ${s(k.ms)}` })),
  ];
}

function runChild(input: ChildInput, execArgv: string[] = [], checkout?: string): Promise<ChildResult> {
  const script = checkout ? path.join(checkout, 'dist', 'bench', 'full-sync-child.js') : path.join(__dirname, 'full-sync-child.js');
  if (!existsSync(script)) return Promise.reject(new Error(`${script} is missing: run the benchmark from the build (npm run bench)`));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...execArgv, script, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || !line) reject(new Error(`the benchmark child failed (exit ${code}): ${err.trim() || out.trim()}`));
      else resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as ChildResult);
    });
  });
}

/**
 * The first full sync of a new install: a campaign of 100,000 members, 20,000 of them linked
 * through `social_connections` to members of a guild of 30,000, on an embedded database that holds
 * only the connected creator and the binding, against both stand-ins over HTTP; then a second sync
 * right after (the nightly steady state). The stand-ins live in this process. One child process
 * creates the database (PGlite's initdb is a one-time cost near 900 MB that no nightly run pays),
 * another opens it and syncs, so the CPU time and peak RSS are the sync's own.
 */
export async function runFullSyncBenchmark(options: FullSyncBenchmarkOptions = {}): Promise<Row[]> {
  const rows = await measureFullSync(options);
  return options.label ? rows.map((r) => ({ ...r, name: `${options.label}: ${r.name}` })) : rows;
}

async function measureFullSync(options: FullSyncBenchmarkOptions): Promise<Row[]> {
  const campaignMembers = options.campaignMembers ?? 100_000;
  const linked = options.linked ?? 20_000;
  const guildMembers = options.guildMembers ?? 29_997;
  const perSecond = options.discordRequestsPerSecond ?? 2_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tierlink-bench-'));
  const dialect = options.dialect ?? 'spec';
  const scratch = options.postgresUrl ? await createScratchPostgres(options.postgresUrl, 'tierlink_bench') : null;
  const db = scratch ? 'PostgreSQL' : 'PGlite';
  // The stand-in's clock (its rate-limit windows) can be moved on: a nightly sync starts long after the connect.
  const serviceClock = createShiftableClock();
  // Patreon's dialect keeps Patreon's limits (its rows are about them); the spec's measures Tierlink's own cost.
  const patreonRaised = dialect === 'spec';
  const patreon = await createMembershipServiceSandbox({
    dialect,
    clock: serviceClock,
    ...(patreonRaised
      ? {
          rateLimits: 'none' as const,
          raisedLimits: "the spec dialect's run measures Tierlink's own time and memory; Patreon's pace has its own rows",
        }
      : {}),
  });
  const discord = await createDiscordSandbox({
    rateLimits: { global: { limit: perSecond, windowMs: 1000 }, routes: { 'member-role': { limit: 100_000, windowMs: 1_000 } } },
    raisedLimits:
      perSecond === GLOBAL_PER_SECOND
        ? "the member-role bucket only: the sync's wall time is measured against the floor of Discord's global limit (kept at 50 a second)"
        : "the figures are Tierlink's own (CPU, memory, requests); under Discord's real limits the role writes take the floor reported beside them, whatever Tierlink does",
  });
  try {
    const { guildId } = discord.createGuild({ name: 'Bench' });
    const role = (name: string) => discord.createRole(guildId, { name, position: 1 }).id;
    for (const [title, cents] of [
      ['Bronze', 300],
      ['Silver', 500],
      ['Gold', 1000],
    ] as const) {
      patreon.createTier(patreon.campaignId, { title, amountCents: cents, chatRoleIds: [role(title)] });
    }
    const { userIds } = discord.generateGuild({ guildId, members: guildMembers, seed: 1 });
    const every = Math.floor(campaignMembers / linked);
    patreon.generateMembers({
      campaignId: patreon.campaignId,
      count: campaignMembers,
      seed: 1,
      discordUserIdFor: (i) => (i % every === 0 && i / every < linked ? (userIds[i / every] ?? null) : null),
    });

    const common = {
      dataDir,
      ...(scratch ? { postgresUrl: scratch.url } : {}),
      secretKey: randomBytes(32).toString('base64url'),
      patreon: {
        url: patreon.url,
        clientId: patreon.clientId,
        clientSecret: patreon.clientSecret,
        accessToken: patreon.creatorTokens.accessToken,
        refreshToken: patreon.creatorTokens.refreshToken,
        expiresIn: patreon.creatorTokens.expiresIn,
        scopes: patreon.creatorTokens.scopes,
      },
      discord: {
        apiBaseUrl: discord.apiBaseUrl,
        botToken: discord.botToken,
        botUserId: discord.botUserId,
        globalRequestsPerSecond: perSecond,
      },
      // The service's configuration over the stand-ins, as the README has it set.
      environment: standInEnvironment(patreon, discord),
      guildId,
      campaignId: patreon.campaignId,
      patreonUnpaced: patreonRaised,
      concurrency: options.concurrency ?? 8,
      secondRun: options.secondRun !== false,
    };
    await runChild({ ...common, mode: 'setup' }, [], options.checkout);
    // The setup process connected the creator and read the campaign: it learned the dialect (and stored it).
    const learning = patreon.requests();
    const learnedWith = learning.filter((r) => r.status === 400).length;
    patreon.resetRequests();
    serviceClock.advance(61_000);
    discord.resetRequests();
    const execArgv = options.childExecArgv ?? startFlags(options.checkout ?? packageRoot());
    const result = await runChild({ ...common, mode: 'sync' }, execArgv, options.checkout);

    // Counted by the stand-ins themselves, not by the code under test (the first run's only).
    const firstRunEnd = new Date(result.firstRunFinishedAt).getTime();
    // The stand-in logs on its own (shifted) clock.
    const serviceRequests = patreon.requests().filter((r) => new Date(r.at).getTime() - serviceClock.offsetMs() <= firstRunEnd);
    const memberPages = serviceRequests.filter((r) => r.path === `/api/oauth2/v2/campaigns/${patreon.campaignId}/members`).length;
    const rejected = serviceRequests.filter((r) => r.status >= 400 && r.status !== 429).length;
    const throttled = serviceRequests.filter((r) => r.status === 429).length;
    const discordRequests = discord.requests().filter((r) => r.at.getTime() <= firstRunEnd);
    const memberLists = discordRequests.filter((r) => r.route === 'GET /guilds/:g/members').length;
    const roleAnswers = discordRequests.filter((r) => r.route.endsWith('/roles/:r') && (r.method === 'PUT' || r.method === 'DELETE'));
    // A 429 is answered before the route runs and @discordjs/rest sends the request again: one change, two requests.
    const tooMany = roleAnswers.filter((r) => r.status === 429).length;
    const roleRequests = roleAnswers.length - tooMany;
    const g = result.guild;
    const plannedChanges = g ? g.planned.adds + g.planned.removes : 0;
    const serviceTotal = Object.entries(result.apiCalls)
      .filter(([k]) => k.startsWith('patreon '))
      .reduce((sum, [, v]) => sum + v, 0);

    const label = dialect === 'patreon' ? "Patreon's dialect" : "the spec's dialect";
    const requestRows: Row[] = [
      {
        name: `full sync (${label}), second process: member-list requests / rejected / total requests to the service`,
        value: `${memberPages} / ${rejected} / ${serviceRequests.length} (${throttled} answered 429; the client counted ${serviceTotal})`,
        goal: `${Math.ceil(campaignMembers / 1000)} / 0`,
      },
      {
        name: `full sync (${label}): rejected requests of the first process, which learned the dialect and stored it`,
        value: `${learnedWith} of ${learning.length}`,
        goal: dialect === 'patreon' ? '1' : '0',
      },
    ];
    if (dialect !== 'spec') {
      return [
        ...requestRows,
        {
          name: `full sync (${label}): status / wall time (Patreon's budget of 100 requests per minute per token)`,
          value: `${result.status} / ${s(result.wallMs)}`,
        },
      ];
    }
    const n = campaignMembers.toLocaleString('en-US');
    const idleRun = result.secondRun;
    const idleRows: Row[] = [
      {
        name: `idle sync (a second run with nothing to do), ${n} members, ${db}: CPU time / wall time`,
        value: `${s(idleRun.cpuMs)} / ${s(idleRun.wallMs)}`,
        goal: '≤ 3 s CPU',
      },
      {
        name: `idle sync, ${n} members, ${db}: planned changes / role requests / snapshot rows written`,
        value: `${idleRun.plannedChanges} / ${Object.entries(idleRun.apiCalls)
          .filter(([k]) => k.startsWith('discord ') && k.includes('/roles/') && !k.startsWith('discord GET'))
          .reduce((sum, [, v]) => sum + v, 0)} / ${idleRun.statements.snapshotWrites} statements`,
        goal: '0 / 0 / 0',
      },
      ...statementRows(`idle sync, ${n} members, ${db}`, idleRun.statements),
      ...gcRows(`idle sync, ${n} members, ${db}`, idleRun.gc),
    ];
    if (options.idleOnly) return idleRows;
    const floorS = Math.max(plannedChanges / MEMBER_ROLE_PER_SECOND, plannedChanges / GLOBAL_PER_SECOND);
    const label2 = `full sync, ${n} members, ${db}`;
    return [
      { name: `${label2}: campaign members / linked / guild members`, value: `${campaignMembers} / ${linked} / ${g?.members ?? 0}` },
      { name: `${label2}: status`, value: result.status },
      ...requestRows,
      {
        name: `${label2}: member-list requests to Discord`,
        value: String(memberLists),
        goal: `⌈${(g?.members ?? 0).toLocaleString('en-US')}/1000⌉ = ${Math.ceil((g?.members ?? 0) / 1000)}`,
      },
      {
        name: `${label2}: role requests / planned changes`,
        value:
          `${roleRequests} / ${plannedChanges} (${g?.planned.adds ?? 0} adds, ${g?.planned.removes ?? 0} removes; ` +
          `${(g?.applied.adds ?? 0) + (g?.applied.removes ?? 0)} applied, ${g?.failed ?? 0} failed; ${tooMany} more answered 429 and were sent again)`,
        goal: 'equal',
      },
      {
        name: `${label2}: CPU time (user + system)`,
        value: `${s(result.cpuUserMs + result.cpuSystemMs)} (${s(result.cpuUserMs)} + ${s(result.cpuSystemMs)})`,
        goal: '≤ 10 s',
      },
      {
        name: `${label2}: peak RSS of the process (VmHWM), with npm start's flags (${execArgv.join(' ') || 'none'})`,
        value: mb(result.vmHwmBytes ?? result.peakRssSampledBytes),
        goal: scratch ? '≤ 160 MB' : '≤ 250 MB',
      },
      {
        name: `${label2}: RSS before / peak sampled during the run; at the peak: V8 heap used / total, external (${scratch ? 'buffers' : 'PGlite'})`,
        value: `${mb(result.rssBeforeBytes)} / ${mb(result.peakRssSampledBytes)}; ${mb(result.atPeak.heapUsed)} / ${mb(result.atPeak.heapTotal)}, ${mb(result.atPeak.external)} (V8 heap used peaked at ${mb(result.peakHeapUsedBytes)})`,
      },
      {
        name: `${label2}: wall time, ${perSecond === GLOBAL_PER_SECOND ? "Discord's global limit kept (50/s), its member-role bucket raised" : `Discord's limits raised to ${perSecond}/s`} (rate-limit waits: ${s(result.rateLimitWaitMs)})`,
        value: s(result.wallMs),
      },
      {
        name: `${label2}: wall time / the floor of its ${discordRequests.length.toLocaleString('en-US')} Discord requests at ${perSecond} a second`,
        value: `${s(result.wallMs)} / ${s((discordRequests.length / perSecond) * 1000)} = ${(result.wallMs / ((discordRequests.length / perSecond) * 1000)).toFixed(2)}×`,
        ...(perSecond === GLOBAL_PER_SECOND ? { goal: '≤ 1.1×' } : {}),
      },
      {
        name: `${label2}: the rate-limit floor: what Discord's limits alone take for ${plannedChanges.toLocaleString('en-US')} changes (member-role bucket 10 per 10 s per server; global 50/s)`,
        value: duration(floorS),
        goal: 'wall time ≈ floor',
      },
      ...statementRows(label2, result.statements),
      ...gcRows(label2, result.gc),
      ...(options.secondRun === false ? [] : idleRows),
      ...idleRun.changes.map((c) => ({
        name: `idle sync, ${n} members, ${db}: change`,
        value: `${c.op} ${c.roleName ?? c.roleId} ${c.userId}: ${c.reason} [${c.outcome}]`,
      })),
    ];
  } finally {
    await discord.close();
    await patreon.close();
    rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
