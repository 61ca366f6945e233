import os from 'node:os';
import { runCommand } from '../src/cli/cli-support';
import { runMemberListBenchmark } from './member-list';
import { runAuditLogBenchmark } from './audit-log';
import { runChargeDayBenchmark } from './charge-day';
import { runDiscordTrafficBenchmarks } from './discord-traffic';
import { runFullSyncBenchmark } from './full-sync';
import { runLinkLatencyBenchmark } from './link-latency';
import { runWebhookBenchmarks } from './webhooks';

/**
 * `npm run bench`: every benchmark of the project, printed as one table with the machine it ran
 * on. Figures, not pass/fail: a goal column says what each figure is held against.
 *
 * PostgreSQL rows need a server: set BENCH_DATABASE_URL (or DATABASE_URL) to one whose user may
 * create databases; a scratch database is created and dropped. Without it they are skipped.
 */
interface Row {
  name: string;
  value: string;
  goal?: string;
}

type Section = { title: string; run: () => Promise<Row[]> };

/** A campaign of 20,000 (4,000 linked) and a server of 6,000, for the idle sync's figures alone. */
const IDLE_20K = { campaignMembers: 20_000, linked: 4_000, guildMembers: 5_997, idleOnly: true } as const;

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function printTable(rows: Array<Row & { section: string }>): void {
  const headers = ['benchmark', 'figure', 'goal'];
  const cells = rows.map((r) => [r.name, r.value, r.goal ?? '']);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
}

/**
 * BENCH_BASELINE_DIR: another built checkout (e.g. today's main in a second worktree, after
 * `npm run build:dev` there). The full syncs then run twice, that checkout's code first, so its
 * figures and this one's come from the same run on the same machine.
 */
function beside(run: (options: { checkout?: string; label?: string }) => Promise<Row[]>): () => Promise<Row[]> {
  const baseline = process.env.BENCH_BASELINE_DIR;
  if (!baseline) return () => run({});
  return async () => [...(await run({ checkout: baseline, label: `baseline (${baseline})` })), ...(await run({ label: 'this checkout' }))];
}

async function main(): Promise<void> {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
  const only = process.argv.slice(2);
  const sections: Section[] = [
    {
      title: 'Link',
      run: async () => [...(await runLinkLatencyBenchmark()), ...(postgresUrl ? await runLinkLatencyBenchmark({ postgresUrl }) : [])],
    },
    { title: 'Webhooks', run: () => runWebhookBenchmarks(postgresUrl ? { postgresUrl } : {}) },
    // member roles from the gateway, interactive before bulk under Discord's member-role bucket.
    { title: 'Discord traffic', run: () => runDiscordTrafficBenchmarks(postgresUrl ? { postgresUrl } : {}) },
    // 5,000 charges under Patreon's 100 requests a minute per token, an upgrade and a /link during them.
    {
      title: 'Charge day',
      run: async () => [...(await runChargeDayBenchmark()), ...(postgresUrl ? await runChargeDayBenchmark({ postgresUrl }) : [])],
    },
    { title: 'Full sync', run: beside((o) => runFullSyncBenchmark(o)) },
    ...(postgresUrl ? [{ title: 'Full sync on PostgreSQL', run: beside((o) => runFullSyncBenchmark({ ...o, postgresUrl })) }] : []),
    // The same first sync under Discord's real global limit (its member-role bucket raised): wall time against the floor.
    {
      title: "Full sync at Discord's global limit",
      run: async () => [
        ...(await beside((o) => runFullSyncBenchmark({ ...o, discordRequestsPerSecond: 50, secondRun: false }))()),
        ...(postgresUrl
          ? await beside((o) => runFullSyncBenchmark({ ...o, postgresUrl, discordRequestsPerSecond: 50, secondRun: false }))()
          : []),
      ],
    },
    {
      title: 'Idle sync of 20,000',
      run: async () => [
        ...(await runFullSyncBenchmark(IDLE_20K)),
        ...(postgresUrl ? await runFullSyncBenchmark({ ...IDLE_20K, postgresUrl }) : []),
      ],
    },
    // Patreon's dialect: page[count], its names, and its published limits paced by the request budget.
    { title: "Full sync in Patreon's dialect", run: () => runFullSyncBenchmark({ dialect: 'patreon', secondRun: false }) },
    { title: 'Audit log', run: () => runAuditLogBenchmark() },
    // The Members page at 100,000 memberships: counts, a filtered page and its HTML.
    {
      title: 'Members page',
      run: async () => [...(await runMemberListBenchmark()), ...(postgresUrl ? await runMemberListBenchmark({ postgresUrl }) : [])],
    },
  ];
  const rows: Array<Row & { section: string }> = [];
  console.log(`Tierlink benchmarks on ${machine()}`);
  console.log(
    postgresUrl
      ? 'PostgreSQL rows use a scratch database on the configured server.'
      : 'PostgreSQL rows skipped: set BENCH_DATABASE_URL to include them.',
  );
  for (const section of sections) {
    if (only.length > 0 && !only.some((o) => section.title.toLowerCase().startsWith(o.toLowerCase()))) continue;
    const started = Date.now();
    process.stderr.write(`running ${section.title}…\n`);
    try {
      for (const row of await section.run()) rows.push({ ...row, section: section.title });
    } catch (error) {
      rows.push({ section: section.title, name: 'failed', value: error instanceof Error ? error.message : String(error) });
    }
    process.stderr.write(`  ${section.title} took ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  console.log('');
  printTable(rows);
}

runCommand('npm run bench', main, (error) => {
  console.error(error);
  process.exit(1);
});
