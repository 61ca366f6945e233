import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { MEMBER_FILTER_KEYS, createMemberList } from '../src/app/dashboard/member-list';
import { createRepositories } from '../src/edges/outbound/store/repositories';
import { createSecretBox } from '../src/edges/outbound/store/secret-box';
import { renderMemberSearch } from '../src/edges/inbound/web/dashboard/render-members';
import type { Clock } from '../src/shared/clock';
import { seedMembers } from '../test/support/member-seed';
import { openScratchDatabase } from './scratch-database';
import { silentLogger } from '../src/shared/logger';

type Row = { name: string; value: string; goal?: string };

const ms = (n: number) => `${n.toFixed(1)} ms`;

function stats(samples: number[]): { median: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}

/**
 * The dashboard's Members page over 100,000 memberships of one campaign (PGlite on disk, or
 * PostgreSQL with `postgresUrl`): two thirds linked, a third of those not in the server, a tenth in
 * grace (test/support/member-seed.ts). Each figure is the page as a manager gets it: the counts of
 * every filter, one page of the list in that filter, the tiers' names and the HTML.
 */
export async function runMemberListBenchmark(options: { members?: number; runs?: number; postgresUrl?: string } = {}): Promise<Row[]> {
  const members = options.members ?? 100_000;
  const runs = options.runs ?? 9;
  const scratch = await openScratchDatabase(options.postgresUrl);
  try {
    const { db } = scratch.database;
    const now = new Date();
    const clock: Clock = { now: () => new Date() };
    const guildId = '100000000000000001';
    const campaignId = 'bench-campaign';
    await db.execute(sql`insert into guilds (id, name) values (${guildId}, 'Bench')`);
    await db.execute(sql`insert into guild_campaigns (guild_id, campaign_id) values (${guildId}, ${campaignId})`);
    const seeded = performance.now();
    await seedMembers(db, { guildId, campaignId, tierIds: ['bronze', 'silver', 'gold'], count: members, now, graceDays: 7 });
    await db.execute(sql`analyze`);
    const seedMs = performance.now() - seeded;
    const repos = createRepositories(db, createSecretBox('bench-secret-key-that-is-long-enough-123'));
    const list = createMemberList({ ...repos, clock, logger: silentLogger });
    const viewer = { name: 'Bench', csrfToken: 'x' };
    const access = { guildId, guildName: 'Bench', userId: '1', displayName: 'Bench', owner: true, canChange: true };
    const rows: Row[] = [
      {
        name: `members (${scratch.label}): ${members.toLocaleString('en-US')} memberships written`,
        value: `${(seedMs / 1000).toFixed(1)} s`,
      },
    ];
    const built = performance.now();
    await list.refresh(guildId);
    rows.push({
      name: `members (${scratch.label}): the list counted and built (first view, or after a change, in the background)`,
      value: ms(performance.now() - built),
    });
    const versionSamples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await repos.memberList.version(guildId);
      versionSamples.push(performance.now() - started);
    }
    rows.push({
      name: `members (${scratch.label}): has the data changed? (each view)`,
      value: `${ms(stats(versionSamples).median)} median`,
    });
    const cases = [
      ...MEMBER_FILTER_KEYS.map((filter) => ({ name: `${filter}, first page by name`, filter, sort: 'name' as const, page: 1 })),
      { name: 'all, page 1,000 by name', filter: 'all' as const, sort: 'name' as const, page: 1_000 },
      { name: 'patrons, newest first', filter: 'patrons' as const, sort: 'since' as const, page: 1 },
    ];
    for (const c of cases) {
      const samples: number[] = [];
      let shown = 0;
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        const page = await list.page(guildId, c);
        renderMemberSearch({ access, viewer, query: '', result: null, list: page, joinUrl: 'https://example.org/join/bench', flash: null });
        samples.push(performance.now() - started);
        shown = page.counts[c.filter];
      }
      const { median, max } = stats(samples);
      rows.push({
        name: `members page (${scratch.label}, ${members.toLocaleString('en-US')}): ${c.name}`,
        value: `${ms(median)} median, ${ms(max)} slowest of ${runs} (${shown.toLocaleString('en-US')} in the filter)`,
        goal: '< 200 ms',
      });
    }
    const exportStarted = performance.now();
    let exported = 0;
    for await (const batch of list.export(guildId, 'not-linked')) exported += batch.length;
    const exportMs = performance.now() - exportStarted;
    rows.push({
      name: `members (${scratch.label}): not-linked CSV rows read and named`,
      value: `${exported.toLocaleString('en-US')} rows in ${(exportMs / 1000).toFixed(2)} s`,
    });
    return rows;
  } finally {
    await scratch.close();
  }
}
