import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/edges/outbound/store/database';
import { linkUpToCallback, sendCallback } from './link-flow';
import { startTierlinkStack } from './tierlink-stack';

/**
 * Charge day (docs/decisions.md §22): Patreon charges most patrons on the 1st and sends a
 * `members:update` for each charge, while its API allows 100 requests a minute per token. A
 * campaign of `patrons` in Patreon's dialect, both stand-ins at their real limits (nothing raised),
 * the whole service as `npm start` runs it; then one signed delivery per patron for a charge that
 * changes no role (`last_charge_date` now, `last_charge_status: Paid`, the same tier), delivered
 * by the stand-in over HTTP in order, and half-way through an upgrade (a tier change that moves a
 * role) and a `/link` callback. The member reads are counted by the Patreon stand-in, not by us.
 */
export interface ChargeDayOptions {
  /** Patrons charged (one delivery each). Default 5,000. */
  patrons?: number;
  /** A PostgreSQL server URL whose user may create databases; PGlite on disk without it. */
  postgresUrl?: string;
}

export interface BenchRow {
  name: string;
  value: string;
  goal?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | false> | T | null | false): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`charge day: ${what} within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** A member read by id (`GET …/members/{id}`): what a delivery may cost. */
const isMemberRead = (r: { method: string; path: string }) => r.method === 'GET' && /\/members\/[^/]+$/.test(r.path);

export async function runChargeDayBenchmark(options: ChargeDayOptions = {}): Promise<BenchRow[]> {
  const patrons = options.patrons ?? 5_000;
  let upgrader = { discordUserId: '', patreonUserId: '' };
  let linker = { discordUserId: '', patreonUserId: '' };
  let members: { userIds: string[] } = { userIds: [] };
  const stack = await startTierlinkStack({
    tiers: { silver: { title: 'Silver', amountCents: 500 }, gold: { title: 'Gold', amountCents: 1000 } },
    ...(options.postgresUrl ? { postgresUrl: options.postgresUrl } : {}),
    // Discord's own limits (member-role bucket 10 per 10 s, 50 a second) and Patreon's: nothing raised.
    patreonRealLimits: { dialect: 'patreon' },
    beforeStart: ({ patreon, discord, guildId, tiers }) => {
      // About 60 % with a Discord account on their profile (linked from it by the sync), none in the server.
      members = patreon.generateMembers({
        campaignId: patreon.campaignId,
        count: patrons,
        seed: 'charge-day',
        tierIds: [tiers.silver, tiers.gold],
        mix: { active: 1, declined: 0, former: 0, follower: 0, never: 0 },
      });
      const inServer = (name: string) => {
        const discordUserId = discord.addMember(guildId, { username: name }).userId;
        return discordUserId;
      };
      const u = inServer('upgrader');
      upgrader = { discordUserId: u, patreonUserId: patreon.createUser({ fullName: 'Una Upgrade', discordUserId: u }).id };
      patreon.setMembership(upgrader.patreonUserId, patreon.campaignId, { tierIds: [tiers.silver] }, { deliver: false });
      linker = { discordUserId: inServer('linker'), patreonUserId: patreon.createUser({ fullName: 'Lin Link' }).id };
      patreon.setMembership(linker.patreonUserId, patreon.campaignId, { tierIds: [tiers.gold] }, { deliver: false });
    },
  });
  const { patreon, discord, guildId, roles, tiers, tierlink } = stack;
  const db = tierlink.services.database.db;
  try {
    // Start-up registers the webhook; the night's sync (run here) reads every member and links
    // the profiles, so each charge finds a stored read to compare with.
    await until('the webhook registered', 60_000, () => patreon.webhooks().length > 0);
    await until('a full sync ran', 300_000, async () => {
      const outcome = await tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'cli' });
      return 'skipped' in outcome ? null : outcome;
    });
    await discord.waitForMemberRole(guildId, upgrader.discordUserId, roles.silver, { present: true, timeoutMs: 60_000 });
    const link = await linkUpToCallback(stack, { n: 1, ...linker });
    await patreon.flushDeliveries();
    const deliveredBefore = patreon.deliveries().length;
    const inboxDone = async () =>
      (
        await queryRows<{ done: number; open: number }>(
          db,
          sql`select count(*) filter (where status = 'done')::int as done, count(*) filter (where status <> 'done')::int as open from webhook_inbox`,
        )
      )[0]!;
    const doneBefore = (await inboxDone()).done;

    patreon.resetRequests();
    discord.resetRequests();
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 25);
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const chargedAt = new Date();
    const charge = (userId: string) =>
      patreon.setMembership(userId, patreon.campaignId, {
        lastChargeDate: chargedAt,
        lastChargeStatus: 'Paid',
        patronStatus: 'active_patron',
      });
    const half = Math.floor(patrons / 2);
    for (const userId of members.userIds.slice(0, half)) charge(userId);
    await until('half of the charges delivered', 600_000, () => patreon.deliveries().length - deliveredBefore >= half);

    // Mid-storm: an upgrade (Silver → Gold) queued behind the charges still to come, and a /link.
    const upgradeQueuedAt = Date.now();
    patreon.setMembership(upgrader.patreonUserId, patreon.campaignId, { tierIds: [tiers.gold] });
    const upgradeRole = discord
      .waitForMemberRole(guildId, upgrader.discordUserId, roles.silver, { present: false, timeoutMs: 600_000 })
      .then(() => discord.waitForMemberRole(guildId, upgrader.discordUserId, roles.gold, { present: true, timeoutMs: 600_000 }))
      .then(() => Date.now());
    const linked = sendCallback(stack, link, roles.gold, 600_000);
    for (const userId of members.userIds.slice(half)) charge(userId);

    const total = patrons + 1;
    await until('every delivery sent', 600_000, () => patreon.deliveries().length - deliveredBefore >= total);
    await patreon.flushDeliveries();
    const accepted = patreon.deliveries().slice(deliveredBefore);
    const refused = accepted.filter((d) => !d.ok).length;
    await until('every delivery processed', 1_200_000, async () => {
      const { done, open } = await inboxDone();
      return done - doneBefore >= total && open === 0;
    });
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuStart);
    const upgradeHeldAt = await upgradeRole;
    const { roleMs: linkMs } = await linked;
    // A re-check a deferred delivery scheduled would read at its window's end (5 s): counted too.
    await sleep(6_000);
    clearInterval(sampler);

    const upgradeDelivery = accepted.find((d) => d.body.includes(tiers.gold) && d.body.includes(`"id":"${upgrader.patreonUserId}"`));
    const upgradeDeliveredAt = upgradeDelivery ? Date.parse(upgradeDelivery.at) : Number.NaN;
    const requests = patreon.requests();
    const memberReads = requests.filter(isMemberRead);
    const reads = memberReads.length;
    const byCreator = memberReads.filter((r) => r.tokenKind === 'creator').length;
    if (process.env.BENCH_CHARGE_DAY_DEBUG)
      console.error(requests.map((r) => `${r.at} ${r.method} ${r.path} ${r.tokenKind} ${r.status}`).join('\n'));
    const refusedByPatreon = requests.filter((r) => r.status === 429).length;
    const allowed = 1 + Math.floor(total / 100);
    const discordRoutes = new Map<string, number>();
    for (const r of discord.requests()) discordRoutes.set(r.route, (discordRoutes.get(r.route) ?? 0) + 1);
    const label = `${patrons.toLocaleString('en-US')} charges, Patreon's dialect and limits, ${stack.label}`;
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return [
      {
        name: `Charge day: upgrade delivered mid-storm → role held (${label})`,
        value: `${s(upgradeHeldAt - upgradeDeliveredAt)} (queued at Patreon → role: ${s(upgradeHeldAt - upgradeQueuedAt)})`,
        goal: '≤ 2 s',
      },
      { name: `Charge day: /link callback mid-storm → role (${label})`, value: s(linkMs), goal: '≤ 1 s' },
      {
        name: `Charge day: member reads at the Patreon stand-in / all its requests / answered 429 (${label})`,
        value: `${reads} (${byCreator} with the creator's token) / ${requests.length} / ${refusedByPatreon}`,
        goal: `reads ≤ 1 role-changing + 1 % of ${total.toLocaleString('en-US')} = ${allowed}, + 1 the /link reads; 429: 0`,
      },
      {
        name: `Charge day: deliveries sent / refused by Tierlink (${label})`,
        value: `${accepted.length} / ${refused}`,
        goal: `${total} / 0`,
      },
      {
        name: `Charge day: Discord requests during the storm, by route (${label})`,
        value: [...discordRoutes].map(([route, n]) => `${route} ${n}`).join(', ') || 'none',
        goal: 'the upgrade’s 2 and the /link’s 1 role requests',
      },
      { name: `Charge day: storm wall, first charge → last delivery processed (${label})`, value: s(wall) },
      {
        name: `Charge day: CPU / peak RSS of the bench process during the storm (Tierlink and both stand-ins) (${label})`,
        value: `${((cpu.user + cpu.system) / 1e6).toFixed(1)} s / ${Math.round(peakRss / 2 ** 20)} MB (${Math.round(rssBefore / 2 ** 20)} MB as it began)`,
      },
    ];
  } finally {
    await stack.close();
  }
}
