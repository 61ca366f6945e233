import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createMemberRoleCache } from '../src/edges/outbound/discord/member-roles';
import { type PreparedLink, linkUpToCallback, sendCallback } from './link-flow';
import { type TierlinkStack, startTierlinkStack } from './tierlink-stack';

/**
 * Discord traffic figures for `npm run bench`: the whole service and both
 * stand-ins (bench/tierlink-stack.ts), the real discord.js client on the Discord stand-in's gateway
 * feeding the member-role cache, the real clock.
 *
 * - Interactive latency at 16 changes per second, Discord's limits raised in the stand-in so what
 *   remains is Tierlink's: webhook change → role (a tier upgrade delivered by the membership
 *   stand-in) and `/link` callback → role, p50 and p99, and the Discord requests each change cost
 *   against its role changes.
 * - Interactive latency during a bulk sync under Discord's member-role bucket (10 per 10 s per
 *   guild, a fixed window; the stand-in's DISCORD_RATE_LIMITS figures): a `/link` and a webhook
 *   upgrade sent early in a window and again in the window's last second, the bulk's achieved rate
 *   as a share of the bucket, and the 429s the stand-in answered.
 * - The member-role cache's memory for 100,000 members.
 */
export interface BenchRow {
  name: string;
  value: string;
  goal?: string;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

type Stack = TierlinkStack<'silver' | 'gold'>;

export function startStack(options: {
  postgresUrl?: string;
  discordRateLimits?: Parameters<typeof startTierlinkStack>[0]['discordOptions'];
}): Promise<Stack> {
  return startTierlinkStack({
    tiers: { silver: { title: 'Silver', amountCents: 500 }, gold: { title: 'Gold', amountCents: 1000 } },
    postgresUrl: options.postgresUrl,
    discordOptions: options.discordRateLimits,
  });
}

function pledge(stack: Stack, userId: string, tier: 'silver' | 'gold', deliver: boolean): void {
  stack.patreon.setMembership(
    userId,
    stack.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [stack.tiers[tier]], lastChargeStatus: 'Paid', lastChargeDate: new Date() },
    { deliver },
  );
}

/** A member who joined while Tierlink watched, a patron of `tier`, and a `/link` taken up to the callback (not sent yet). */
async function prepareLink(stack: Stack, n: number, tier: 'silver' | 'gold') {
  const user = stack.patreon.createUser({ fullName: `Bench Linker ${n}` });
  pledge(stack, user.id, tier, false);
  const member = stack.discord.addMember(stack.guildId, { username: `linker${n}` });
  const link = await linkUpToCallback(stack, { n, discordUserId: member.userId, patreonUserId: user.id });
  return { ...link, roleId: stack.roles[tier] };
}

/** Sends a prepared callback; resolves with callback → role in ms. */
async function sendLink(stack: Stack, link: PreparedLink & { roleId: string }): Promise<number> {
  return (await sendCallback(stack, link, link.roleId, 60_000)).roleMs;
}

/** A linked patron holding Silver (granted through a webhook), ready to be upgraded. */
export async function prepareUpgrade(stack: Stack, n: number) {
  const { patreon, discord, guildId, tierlink } = stack;
  const member = discord.addMember(guildId, { username: `upgrader${n}` });
  const user = patreon.createUser({ fullName: `Bench Upgrader ${n}` });
  await tierlink.services.repos.links.linkOauth('patreon', member.userId, user.id, new Date());
  pledge(stack, user.id, 'silver', true);
  await discord.waitForMemberRole(guildId, member.userId, stack.roles.silver, { present: true, timeoutMs: 30_000 });
  return { userId: member.userId, patreonUserId: user.id };
}

/** The upgrade's delivery is sent; resolves with change → Gold on the member, in ms. */
export async function sendUpgrade(stack: Stack, upgrader: Awaited<ReturnType<typeof prepareUpgrade>>): Promise<number> {
  const sent = performance.now();
  const role = stack.discord.waitForMemberRole(stack.guildId, upgrader.userId, stack.roles.gold, { present: true, timeoutMs: 60_000 });
  pledge(stack, upgrader.patreonUserId, 'gold', true);
  await role;
  return performance.now() - sent;
}

/** Discord requests about these members (reads and role changes), as the stand-in logged them. */
function memberRequests(stack: Stack, userIds: readonly string[]) {
  const wanted = new Set(userIds.map((u) => `/guilds/${stack.guildId}/members/${u}`));
  const calls = stack.discord.requests().filter((r) => [...wanted].some((p) => r.path === p || r.path.startsWith(`${p}/`)));
  return { total: calls.length, roles: calls.filter((r) => r.route.includes('/roles/:r')).length };
}

/** At 16 changes per second: each change is sent on schedule, whether the previous one finished or not. */
async function atRate<T>(count: number, perSecond: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const start = performance.now();
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const due = start + (i * 1000) / perSecond;
      await sleep(Math.max(0, due - performance.now()));
      return send(i);
    }),
  );
}

/** Discord's limits out of the way, so that what remains of a change's latency is Tierlink's. */
const RAISED: NonNullable<Parameters<typeof startStack>[0]['discordRateLimits']> = {
  rateLimits: { global: { limit: 10_000, windowMs: 1_000 }, routes: { 'member-role': { limit: 10_000, windowMs: 1_000 } } },
  raisedLimits:
    '16 changes a second in one server, to measure what Tierlink adds to each; the bucket’s own cost has the rows "during a bulk sync"',
};

export async function measureInteractive(postgresUrl: string | undefined, changes: number): Promise<BenchRow[]> {
  const stack = await startStack({ ...(postgresUrl ? { postgresUrl } : {}), discordRateLimits: RAISED });
  try {
    const where = `${changes} at 16/s, ${stack.label}`;
    // Warm-up (JIT, pools, the guild's role snapshot): not counted.
    for (let i = 0; i < 5; i++) await sendUpgrade(stack, await prepareUpgrade(stack, -1 - i));

    const upgraders: Array<Awaited<ReturnType<typeof prepareUpgrade>>> = [];
    for (let i = 0; i < changes; i++) upgraders.push(await prepareUpgrade(stack, i));
    stack.discord.resetRequests();
    const webhook = (await atRate(changes, 16, (i) => sendUpgrade(stack, upgraders[i]!))).sort((a, b) => a - b);
    await sleep(200); // the Silver removals that follow each Gold
    const webhookCalls = memberRequests(
      stack,
      upgraders.map((u) => u.userId),
    );

    const links: Array<Awaited<ReturnType<typeof prepareLink>>> = [];
    for (let i = 0; i < changes; i++) links.push(await prepareLink(stack, i, 'gold'));
    stack.discord.resetRequests();
    const linked = (await atRate(changes, 16, (i) => sendLink(stack, links[i]!))).sort((a, b) => a - b);
    const linkCalls = memberRequests(
      stack,
      links.map((l) => l.discordUserId),
    );

    return [
      { name: `Webhook change → role, p50 (${where})`, value: ms(percentile(webhook, 50)) },
      { name: `Webhook change → role, p99 (${where})`, value: ms(percentile(webhook, 99)), goal: '≤ 50 ms' },
      {
        name: `… Discord requests per change / role changes per change (${stack.label})`,
        value: `${(webhookCalls.total / changes).toFixed(2)} / ${(webhookCalls.roles / changes).toFixed(2)}`,
        goal: 'equal (2: add Gold, remove Silver)',
      },
      { name: `/link callback → role, p50 (${where})`, value: ms(percentile(linked, 50)) },
      { name: `/link callback → role, p99 (${where})`, value: ms(percentile(linked, 99)), goal: '≤ 100 ms' },
      {
        name: `… Discord requests per link / role changes per link (${stack.label})`,
        value: `${(linkCalls.total / changes).toFixed(2)} / ${(linkCalls.roles / changes).toFixed(2)}`,
        goal: 'equal (1)',
      },
    ];
  } finally {
    await stack.close();
  }
}

/**
 * Splits role requests into the windows of a fixed-window bucket (a window opens with the first
 * request after the previous one closed, as the stand-in counts them).
 */
function windowsOf(times: readonly number[], windowMs: number): number[] {
  const counts: number[] = [];
  let end = -Infinity;
  for (const t of [...times].sort((a, b) => a - b)) {
    if (t >= end) {
      counts.push(0);
      end = t + windowMs;
    }
    counts[counts.length - 1]! += 1;
  }
  return counts;
}

async function measureDuringBulk(postgresUrl: string | undefined, grants: number): Promise<BenchRow[]> {
  const limit = 10;
  const windowMs = 10_000;
  // Discord's real limits throughout: the stand-in's defaults (DISCORD_RATE_LIMITS).
  const stack = await startStack({ ...(postgresUrl ? { postgresUrl } : {}) });
  try {
    const { discord, guildId, tierlink } = stack;
    const upgraders = [await prepareUpgrade(stack, 1), await prepareUpgrade(stack, 2)];
    const links = [await prepareLink(stack, 1, 'gold'), await prepareLink(stack, 2, 'gold')];
    // Linked patrons whose roles are missing: the sync grants them in the bulk lane.
    const bulk: string[] = [];
    for (let i = 0; i < grants; i++) {
      const member = discord.addMember(guildId, { username: `bulk${i}` });
      const user = stack.patreon.createUser({ fullName: `Bench Bulk ${i}` });
      pledge(stack, user.id, 'silver', false);
      await tierlink.services.repos.links.linkOauth('patreon', member.userId, user.id, new Date());
      bulk.push(member.userId);
    }
    // Discord's member-role bucket, its windows opened afresh for the run (the preparation's grants left out).
    discord.setRateLimit({ route: 'member-role', limit, windowMs });
    discord.clearRoleEvents();
    discord.resetRequests();

    const started = performance.now();
    const sync = tierlink.services.runSync({ guildId, dryRun: false, force: false, trigger: 'cli' });
    const grantTimes = () => discord.roleEvents().filter((e) => e.via === 'rest');
    while (grantTimes().length === 0) await sleep(5);
    const firstAt = performance.now();
    // Early in the first window, and in the last second of the second (when the bulk may spend the reserve).
    await sleep(2_000);
    const early = await Promise.all([sendLink(stack, links[0]!), sendUpgrade(stack, upgraders[0]!)]);
    await sleep(Math.max(0, firstAt + windowMs + 9_300 - performance.now()));
    const late = await Promise.all([sendLink(stack, links[1]!), sendUpgrade(stack, upgraders[1]!)]);
    const outcome = await sync;
    const wallMs = performance.now() - started;

    const events = discord.roleEvents().filter((e) => e.via === 'rest');
    const bulkSet = new Set(bulk);
    const windows = windowsOf(
      events.map((e) => e.at.getTime()),
      windowMs,
    );
    const bulkRequests = events.filter((e) => bulkSet.has(e.userId)).length;
    // What the bucket allowed while the bulk ran: full windows, and the last window as far as it was used.
    const capacity = limit * (windows.length - 1) + windows.at(-1)!;
    const tooMany = discord.rateLimitHits().reduce((n, h) => n + h.count, 0);
    const worst = Math.max(...early, ...late);
    const where = `${grants} grants, 10 per 10 s, ${stack.label}`;
    return [
      {
        name: `During a bulk sync (${where}): /link callback → role, early in a window / in its last second`,
        value: `${ms(early[0]!)} / ${ms(late[0]!)}`,
        goal: '≤ 2 s',
      },
      {
        name: '… webhook upgrade → role, early in a window / in its last second',
        value: `${ms(early[1]!)} / ${ms(late[1]!)}`,
        goal: '≤ 2 s',
      },
      { name: '… worst interactive latency', value: ms(worst), goal: '≤ 2 s' },
      {
        name: '… bulk requests / the bucket’s capacity while it ran',
        value: `${bulkRequests} / ${capacity} = ${((100 * bulkRequests) / capacity).toFixed(0)} % (windows used ${windows.join('+')})`,
        goal: '≥ 80 %',
      },
      {
        name: '… sync wall time / the bucket’s floor for its requests',
        value: `${(wallMs / 1000).toFixed(1)} s / ${(((Math.ceil(events.length / limit) - 1) * windowMs) / 1000).toFixed(0)} s (${'skipped' in outcome ? 'skipped' : outcome.status})`,
      },
      { name: '… 429 answers', value: String(tooMany), goal: '0' },
    ];
  } finally {
    await stack.close();
  }
}

/**
 * The member-role bucket's sizes and windows while the changes run: it grows from Discord's 10 per
 * 10 s and then changes every {@link CHANGE_EVERY_MS}, each size carrying the run's 32 role
 * requests a second, so that a change's latency depends only on how soon Tierlink follows Discord.
 */
const BUCKETS = [
  { limit: 60, windowMs: 1_000 },
  { limit: 600, windowMs: 10_000 },
  { limit: 40, windowMs: 500 },
  { limit: 100, windowMs: 2_000 },
  { limit: 10_000, windowMs: 1_000 },
] as const;
const CHANGE_EVERY_MS = 1_500;
const BUCKETS_RAISED = 'each size carries the run’s 32 role requests a second: the figure is how soon Tierlink follows Discord’s changes';

/**
 * Webhook → role and `/link` callback → role while Discord's member-role bucket changes size and
 * window mid-run, in both directions: the bucket starts at Discord's 10 per 10 s (learned by a
 * warm-up that spends most of a window), then grows and keeps changing every 1.5 s.
 */
export async function measureChangingBuckets(postgresUrl: string | undefined, changes: number): Promise<BenchRow[]> {
  const stack = await startStack({
    ...(postgresUrl ? { postgresUrl } : {}),
    discordRateLimits: {
      rateLimits: { global: { limit: 10_000, windowMs: 1_000 }, routes: { 'member-role': { limit: 10_000, windowMs: 1_000 } } },
      raisedLimits: `the global limit, and a member-role bucket where ${BUCKETS_RAISED}`,
    },
  });
  const { discord } = stack;
  let cycling = false;
  let step = 0;
  /** Changes the bucket every 1.5 s until stopped. */
  const cycle = async () => {
    cycling = true;
    while (cycling) {
      const bucket = BUCKETS[step++ % BUCKETS.length]!;
      discord.setRateLimit({ route: 'member-role', ...bucket, raised: BUCKETS_RAISED });
      await sleep(CHANGE_EVERY_MS);
    }
  };
  try {
    const where = `${changes} at 16/s, the member-role bucket from 10 per 10 s to ${BUCKETS.map((b) => `${b.limit}/${b.windowMs / 1000} s`).join(' → ')}, changing every 1.5 s, ${stack.label}`;
    const upgraders: Array<Awaited<ReturnType<typeof prepareUpgrade>>> = [];
    for (let i = 0; i < changes + 4; i++) upgraders.push(await prepareUpgrade(stack, 1_000 + i));
    const links: Array<Awaited<ReturnType<typeof prepareLink>>> = [];
    for (let i = 0; i < changes; i++) links.push(await prepareLink(stack, 1_000 + i, 'gold'));

    // Discord's own bucket, learned: four upgrades (eight requests) spend most of a 10-second window.
    discord.setRateLimit({ route: 'member-role', limit: 10, windowMs: 10_000 });
    for (const upgrader of upgraders.splice(0, 4)) await sendUpgrade(stack, upgrader);
    discord.resetRequests();
    const hitsBefore = discord.rateLimitHits().reduce((n, h) => n + h.count, 0);

    const running = cycle();
    const webhook = (await atRate(changes, 16, (i) => sendUpgrade(stack, upgraders[i]!))).sort((a, b) => a - b);
    const linked = (await atRate(changes, 16, (i) => sendLink(stack, links[i]!))).sort((a, b) => a - b);
    cycling = false;
    await running;
    const tooMany = discord.rateLimitHits().reduce((n, h) => n + h.count, 0) - hitsBefore;
    return [
      {
        name: `Buckets that change mid-run (${where}): webhook change → role, p50 / p99`,
        value: `${ms(percentile(webhook, 50))} / ${ms(percentile(webhook, 99))}`,
        goal: 'p99 ≤ 100 ms',
      },
      {
        name: '… /link callback → role, p50 / p99',
        value: `${ms(percentile(linked, 50))} / ${ms(percentile(linked, 99))}`,
        goal: 'p99 ≤ 100 ms',
      },
      { name: '… bucket changes during the run / 429 answers', value: `${step} / ${tooMany}`, goal: '0 answered 429' },
    ];
  } finally {
    cycling = false;
    await stack.close();
  }
}

/**
 * A bulk apply paced by Discord's global limit alone: a sync granting `grants` roles in one server,
 * the member-role bucket raised so that the floor is the global limit's (50 a second), against the
 * time the grants took. One process counts the global limit whole, on PostgreSQL too once it holds
 * it alone (instances sharing a budget through PostgreSQL count it as 35 a second).
 */
export async function measureBulkUnderGlobal(postgresUrl: string | undefined, grants: number): Promise<BenchRow[]> {
  const stack = await startStack({
    ...(postgresUrl ? { postgresUrl } : {}),
    discordRateLimits: {
      rateLimits: { routes: { 'member-role': { limit: 100_000, windowMs: 1_000 } } },
      raisedLimits: 'the member-role bucket only, so that the floor measured is the global limit’s (Discord’s 50 a second, kept)',
    },
  });
  try {
    const { discord, guildId, tierlink } = stack;
    for (let i = 0; i < grants; i++) {
      const member = discord.addMember(guildId, { username: `floor${i}` });
      const user = stack.patreon.createUser({ fullName: `Bench Floor ${i}` });
      pledge(stack, user.id, 'silver', false);
      await tierlink.services.repos.links.linkOauth('patreon', member.userId, user.id, new Date());
    }
    discord.clearRoleEvents();
    discord.resetRequests();
    // A second after the preparation's last request: Discord's current second is the sync's own.
    await sleep(1_100);
    const outcome = await tierlink.services.runSync({ guildId, dryRun: false, force: false, trigger: 'cli' });
    const times = discord
      .roleEvents()
      .filter((e) => e.via === 'rest')
      .map((e) => e.at.getTime())
      .sort((a, b) => a - b);
    const requests = discord.requests().length;
    const spanS = (times.at(-1)! - times[0]!) / 1000;
    // The floor of the requests sent from the first grant to the last, at 50 a second.
    const during = discord.requests().filter((r) => r.at.getTime() >= times[0]! && r.at.getTime() <= times.at(-1)!).length;
    const floorS = (during - 1) / 50;
    const tooMany = discord.rateLimitHits().reduce((n, h) => n + h.count, 0);
    return [
      {
        name: `Bulk under Discord's global limit (${grants} grants in one server, ${stack.label}): the grants' span / the floor of its ${during} requests at 50 a second`,
        value: `${spanS.toFixed(1)} s / ${floorS.toFixed(1)} s = ${(spanS / floorS).toFixed(2)}× (${'skipped' in outcome ? 'skipped' : outcome.status}; ${requests} requests in all)`,
        goal: '≤ 1.1×',
      },
      { name: '… 429 answers', value: String(tooMany), goal: '0' },
    ];
  } finally {
    await stack.close();
  }
}

/** The member-role cache's own memory for 100,000 members, fed as the gateway feeds it. */
export function measureCacheMemory(members: number): BenchRow[] {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const guildId = '100000000000000001';
  const roles = Array.from({ length: 40 }, (_, i) => String(300_000_000_000_000_000n + BigInt(i)));
  // Dispatches as the gateway sends them, made one at a time: after a GC only what the cache keeps is left.
  const packet = (i: number) => {
    const id = String(400_000_000_000_000_000n + BigInt(i) * 4_194_304n);
    // Most members hold no role; some a tier role; a few several (staff, boosters, colour roles).
    const held = i % 3 === 0 ? [roles[i % 5]!] : i % 10 === 1 ? [roles[i % 5]!, roles[5 + (i % 35)]!] : [];
    return { t: 'GUILD_MEMBER_ADD', d: { guild_id: guildId, user: { id }, roles: held } };
  };
  const cache = createMemberRoleCache({ directory: { getMember: async () => null } });
  const feed = cache.session();
  feed.dispatch({ t: 'GUILD_CREATE', d: { id: guildId } });
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  for (let i = 0; i < members; i++) feed.dispatch(packet(i));
  const feedMs = performance.now() - started;
  gc();
  const after = process.memoryUsage();
  const stats = cache.stats();
  const heap = after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
  return [
    {
      name: `Member-role cache, ${members.toLocaleString('en-US')} members: memory (heap and typed arrays after GC / its own count)`,
      value: `${(heap / 2 ** 20).toFixed(1)} MB / ${(stats.bytes / 2 ** 20).toFixed(1)} MB (${Math.round(heap / members)} bytes a member)`,
      goal: 'stated',
    },
    { name: `… fed ${members.toLocaleString('en-US')} GUILD_MEMBER_ADD dispatches`, value: ms(feedMs) },
  ];
}

export async function runDiscordTrafficBenchmarks(
  options: { postgresUrl?: string; changes?: number; bulkGrants?: number; floorGrants?: number } = {},
) {
  const changes = options.changes ?? 100;
  const rows: BenchRow[] = [...measureCacheMemory(100_000)];
  rows.push(...(await measureInteractive(undefined, changes)));
  if (options.postgresUrl) rows.push(...(await measureInteractive(options.postgresUrl, changes)));
  rows.push(...(await measureChangingBuckets(undefined, changes)));
  if (options.postgresUrl) rows.push(...(await measureChangingBuckets(options.postgresUrl, changes)));
  rows.push(...(await measureBulkUnderGlobal(undefined, options.floorGrants ?? 2_500)));
  if (options.postgresUrl) rows.push(...(await measureBulkUnderGlobal(options.postgresUrl, options.floorGrants ?? 2_500)));
  rows.push(...(await measureDuringBulk(undefined, options.bulkGrants ?? 60)));
  if (options.postgresUrl) rows.push(...(await measureDuringBulk(options.postgresUrl, options.bulkGrants ?? 60)));
  return rows;
}
