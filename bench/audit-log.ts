import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { storeCampaign } from '../src/app/admin/campaign-catalog';
import { AUDIT_PAGE_SIZE, type AuditQuery } from '../src/app/dashboard/audit';
import { createDayCounts } from '../src/app/dashboard/overview';
import { queryRows } from '../src/edges/outbound/store/database';
import { renderAudit } from '../src/edges/inbound/web/dashboard/render-audit';
import { DAY, systemClock } from '../src/shared/clock';
import { openScratchDatabase } from './scratch-database';
import { serviceOver } from '../test/support/service-over';
import { UNPACED_PATREON } from '../test/support/raised-limits';

type Row = { name: string; value: string; goal?: string };

export interface AuditLogBenchmarkOptions {
  /** Linked members of the campaign and the guild, all synced at once. */
  members?: number;
  /** Earlier nights copied back in time, to hold the log the dashboard pages through after weeks. */
  earlierNights?: number;
  /** Timed runs of each page. */
  runs?: number;
}

function stats(samples: number[]): { median: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * The dashboard's audit log over a real sync's log on the embedded database (PGlite on disk): a
 * campaign of 20,000 patrons linked to a guild of 20,000, synced once through both stand-ins (every
 * patron gets their tier's role: one audit row each), then the same night copied back over earlier
 * nights so the log holds hundreds of thousands of rows. Each figure is one page as the Audit log
 * page gets it (the keyset query, the names of members and roles, the HTML), median and slowest of
 * several runs.
 */
export async function runAuditLogBenchmark(options: AuditLogBenchmarkOptions = {}): Promise<Row[]> {
  const members = options.members ?? 20_000;
  const earlierNights = options.earlierNights ?? 30;
  const runs = options.runs ?? 15;
  const raisedLimits = 'the figures are the dashboard’s queries over a real sync’s log; the pace of that sync is not measured';
  const patreon = await createMembershipServiceSandbox({ rateLimits: 'none', raisedLimits });
  const discord = await createDiscordSandbox({
    rateLimits: { global: { limit: 5_000, windowMs: 1000 }, routes: { 'member-role': { limit: 100_000, windowMs: 1_000 } } },
    raisedLimits,
  });
  const scratch = await openScratchDatabase();
  try {
    const { guildId } = discord.createGuild({ name: 'Bench' });
    const roleIds: string[] = [];
    for (const [title, cents] of [
      ['Bronze', 300],
      ['Silver', 500],
      ['Gold', 1000],
    ] as const) {
      const roleId = discord.createRole(guildId, { name: title, position: 1 }).id;
      roleIds.push(roleId);
      patreon.createTier(patreon.campaignId, { title, amountCents: cents, chatRoleIds: [roleId] });
    }
    const { userIds } = discord.generateGuild({ guildId, members, seed: 2 });
    patreon.generateMembers({ campaignId: patreon.campaignId, count: members, seed: 2, discordUserIdFor: (i) => userIds[i] ?? null });

    const { db } = scratch.database;
    const clock = systemClock;
    // The service as the composition root builds it, over the stand-ins; its pace raised with theirs.
    const services = serviceOver({ patreon, discord, raisedLimits }, scratch.database, {
      clock,
      random: Math.random,
      patreonLimits: UNPACED_PATREON,
      // The client's own back-off, not the tests' quick one.
      patreonRetry: {},
      discordAccess: { rest: { globalRequestsPerSecond: 5_000 } },
    });
    const { repos, accounts, discord: access } = services;
    const connected = await accounts.connect({
      ...patreon.creatorTokens,
      expiresAt: new Date(Date.now() + patreon.creatorTokens.expiresIn * 1000),
    });
    await storeCampaign(
      { campaigns: repos.campaigns, clock },
      connected.creatorUserId,
      await connected.client.getCampaign(patreon.campaignId),
    );
    await repos.guilds.ensure(guildId, 'Bench');
    await repos.guilds.bind(guildId, patreon.campaignId);
    const { fullSync } = services.sync;
    const syncStarted = performance.now();
    const report = await fullSync.run({ trigger: 'cli' });
    const syncMs = performance.now() - syncStarted;
    const [{ n: syncRows } = { n: 0 }] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from audit_log`);
    for (let night = 1; night <= earlierNights; night++) {
      await db.execute(sql`
        insert into audit_log (at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason, error)
        select at - ${`${night} days`}::interval, guild_id, discord_user_id, role_id,
          case when ${night} % 3 = 0 then 'remove' else action end,
          case when ${night} = 7 and id % 500 = 0 then 'failed' else outcome end,
          case when ${night} % 2 = 0 then 'webhook' else trigger end, reason, error
        from audit_log where at > now() - interval '1 hour'`);
    }
    await db.execute(sql`analyze audit_log`);
    const [{ n: total } = { n: 0 }] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from audit_log`);

    const { audit } = services;
    const roles = (await access.snapshots.get(guildId)).roles.map((r) => ({ id: r.id, name: r.name, problem: null }));
    const viewer = { name: 'Bench', csrfToken: 'x' };
    const guildAccess = { guildId, guildName: 'Bench', userId: '1', displayName: 'Bench', owner: true, canChange: true };
    const member = userIds[Math.floor(members / 2)]!;
    // A cursor half-way down the log: keyset paging costs the same there as on page one.
    const [deep] = await queryRows<{ at: Date; id: number }>(
      db,
      sql`select at, id from audit_log where guild_id = ${guildId} order by at desc, id desc offset ${Math.floor(total / 2)} limit 1`,
    );
    const deepCursor = deep ? `${new Date(deep.at).getTime()}-${deep.id}` : null;
    const day = new Date(Date.now() - 5 * DAY);
    const from = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));

    const cases: Array<{ name: string; query: AuditQuery; cursor?: string | null; direction?: 'older' | 'newer' }> = [
      { name: 'first page, no filter', query: {} },
      { name: `a page half-way down (row ${Math.floor(total / 2).toLocaleString('en-US')}), older`, query: {}, cursor: deepCursor },
      { name: 'a page half-way down, newer', query: {}, cursor: deepCursor, direction: 'newer' },
      { name: 'one member', query: { discordUserId: member } },
      { name: 'one role', query: { roleId: roleIds[1]! } },
      { name: 'trigger webhook', query: { trigger: 'webhook' } },
      { name: 'outcome failed (rare)', query: { outcome: 'failed' } },
      { name: 'one day', query: { from, to: new Date(from.getTime() + DAY) } },
      {
        name: 'removals of one role on one day',
        query: { roleId: roleIds[0]!, action: 'remove', from, to: new Date(from.getTime() + 3 * DAY) },
      },
    ];
    const rows: Row[] = [
      {
        name: 'audit log: the sync behind it (members / rows it wrote / wall time)',
        value: `${(report.guilds[0]?.discord.members ?? 0).toLocaleString('en-US')} members, ${syncRows.toLocaleString('en-US')} rows, ${(syncMs / 1000).toFixed(1)} s`,
      },
      { name: 'audit log: rows in the log (that sync + earlier nights copied back)', value: total.toLocaleString('en-US') },
    ];
    for (const c of cases) {
      const samples: number[] = [];
      let shown = 0;
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        const page = await audit.page(guildId, c.query, { cursor: c.cursor ?? null, direction: c.direction ?? 'older' });
        renderAudit({
          access: guildAccess,
          viewer,
          filter: { member: '', role: '', trigger: '', outcome: '', action: '', from: '', to: '' },
          roles,
          page,
          problems: [],
          flash: null,
        });
        samples.push(performance.now() - started);
        shown = page.entries.length;
      }
      const { median, max } = stats(samples);
      rows.push({
        name: `audit log page (${AUDIT_PAGE_SIZE} rows, PGlite): ${c.name}`,
        value: `${ms(median)} median, ${ms(max)} slowest of ${runs} (${shown} rows)`,
        goal: '< 200 ms',
      });
    }
    const perDay = createDayCounts({ auditLog: repos.auditLog, clock });
    const coldStarted = performance.now();
    await perDay(guildId);
    const cold = performance.now() - coldStarted;
    const warm: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await perDay(guildId);
      warm.push(performance.now() - started);
    }
    rows.push({
      name: 'audit log: Overview chart, 14 days (first view of the day / later views)',
      value: `${ms(cold)} / ${ms(stats(warm).median)} median, ${ms(stats(warm).max)} slowest of ${runs}`,
    });
    const exportStarted = performance.now();
    let exported = 0;
    for await (const batch of audit.export(guildId, { from, to: new Date(from.getTime() + DAY) })) exported += batch.length;
    const exportMs = performance.now() - exportStarted;
    rows.push({
      name: 'audit log: CSV export of one day (rows read and named)',
      value: `${exported.toLocaleString('en-US')} rows in ${(exportMs / 1000).toFixed(2)} s (${Math.round(exported / (exportMs / 1000)).toLocaleString('en-US')} rows/s)`,
    });
    return rows;
  } finally {
    await scratch.close();
    await discord.close();
    await patreon.close();
  }
}
