import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SyncReport } from '../../src/core/sync-report';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { type E2E, startE2E } from '../support/e2e';

/**
 * `npm run sync` as its own process against a membership service that speaks Patreon's dialect,
 * on the database a running Tierlink used (PGlite in DATA_DIR, or PostgreSQL): every kind of
 * member Patreon documents syncs completely (exit 0), a member with an unknown `patron_status`
 * keeps its roles and is counted, the dialect the first process learned is not paid for again,
 * and `--adopt` takes over roles patrons already held.
 */
const syncCli = path.join(packageRoot(), 'dist/src/cli/sync.js');
const MINUTE = 60_000;

let e: E2E;
let membersPath: string;
beforeAll(async () => {
  e = await startE2E({ dialect: 'patreon', creatorTokensInEnv: true, ownDatabase: true });
  membersPath = `/api/oauth2/v2/campaigns/${e.patreon.campaignId}/members`;
}, 60_000);
afterAll(() => e?.stop());

interface CliRun {
  code: number | null;
  report: SyncReport;
  /** Log lines (JSON, warnings and up with --json). */
  logs: Array<Record<string, unknown>>;
  /** What the stand-in of the service was asked during the run. */
  requests: ReturnType<E2E['patreon']['requests']>;
  /** Role requests the Discord stand-in answered during the run. */
  roleRequests: number;
}

/**
 * `npm run sync -- --json …` as a process (seconds each on a shared machine: the tests allow two
 * minutes); the stand-ins' clock moves past their rate-limit window first.
 */
async function runSync(...args: string[]): Promise<CliRun> {
  e.clock.advance(MINUTE + 1000);
  const before = e.patreon.requests().length;
  const discordBefore = e.discord.requests().length;
  const child = spawn(process.execPath, [syncCli, '--json', ...args], { env: { PATH: process.env.PATH ?? '', ...e.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (!stdout.trim().startsWith('{')) throw new Error(`npm run sync printed no report (exit ${code}): ${stderr}`);
  return {
    code,
    report: JSON.parse(stdout) as SyncReport,
    logs: stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>),
    requests: e.patreon.requests().slice(before),
    roleRequests: e.discord
      .requests()
      .slice(discordBefore)
      .filter((r) => r.route.endsWith('/roles/:r') && (r.method === 'PUT' || r.method === 'DELETE')).length,
  };
}

/** A service user whose profile carries their Discord account (so the sync links them), with a membership. */
function member(name: string, membership: Parameters<E2E['patreon']['setMembership']>[2], roleIds: string[] = []) {
  const discordUser = e.discord.addMember(e.guildId, { username: name.toLowerCase(), roleIds });
  const user = e.patreon.createUser({ fullName: name, discordUserId: discordUser.userId });
  const m = e.patreon.setMembership(user.id, e.patreon.campaignId, membership, { deliver: false });
  return { userId: discordUser.userId, patreonUserId: user.id, memberId: m.id };
}

const paid = () => ({ lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' as const });
let people: Record<
  'trial' | 'refunded' | 'partial' | 'never' | 'odd' | 'byHand',
  { userId: string; patreonUserId: string; memberId: string }
>;

test('Patreon’s kinds of member and an unknown patron_status sync completely in another process (exit 0); the odd member keeps its roles', async () => {
  // Linked and granted Gold by the running Tierlink, then Patreon answers a patron_status it never documented.
  const oddUser = e.discord.addMember(e.guildId, { username: 'odd', roleIds: [e.roles.staff] });
  const odd = e.patreon.createUser({ fullName: 'Odd Member' });
  const oddMember = e.patreon.setMembership(
    odd.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], ...paid() },
    { deliver: false },
  );
  await e.link(oddUser.userId, odd.id);
  expect(e.discord.memberRoles(e.guildId, oddUser.userId).sort()).toEqual([e.roles.gold, e.roles.staff].sort());
  e.patreon.setMembership(odd.id, e.patreon.campaignId, { tierIds: [e.tiers.silver] }, { deliver: false });
  e.patreon.overrideMemberAttributes(oddMember.id, { patron_status: 'paused_patron' });

  people = {
    trial: member('Tia Trial', {
      patronStatus: 'active_patron',
      tierIds: [e.tiers.gold],
      isFreeTrial: true,
      lastChargeStatus: 'Free Trial',
      lastChargeDate: null,
    }),
    refunded: member('Rex Refunded', {
      patronStatus: 'former_patron',
      tierIds: [],
      lastChargeStatus: 'Refunded by Patreon',
      lastChargeDate: e.clock.now(),
    }),
    partial: member('Pat Partial', {
      patronStatus: 'active_patron',
      tierIds: [e.tiers.silver],
      lastChargeStatus: 'Partially Refunded',
      lastChargeDate: e.clock.now(),
    }),
    never: member('Nell Never', { patronStatus: null, tierIds: [], lastChargeStatus: null, currentlyEntitledAmountCents: null }),
    odd: { userId: oddUser.userId, patreonUserId: odd.id, memberId: oddMember.id },
    byHand: member('Hal Hand', { patronStatus: 'active_patron', tierIds: [e.tiers.gold], ...paid() }, [e.roles.gold]),
  };
  await e.tierlink.stop();

  const run = await runSync();
  expect(run.code).toBe(0);
  expect(run.report.status).toBe('ok');
  const [campaign] = run.report.campaigns;
  expect(campaign).toMatchObject({ complete: true, members: 6, unreadable: 1 });
  expect(campaign!.unreadableMembers).toEqual([
    { memberId: oddMember.id, attribute: 'patron_status', reason: expect.stringContaining('"paused_patron"') },
  ]);
  // The page really carried what Patreon's samples carry.
  const page = run.requests.find((r) => r.path === membersPath)!;
  expect(page.query['fields[member]']?.split(',')).toEqual(
    expect.arrayContaining(['is_free_trial', 'is_gifted', 'currently_entitled_amount_cents']),
  );

  const roles = (who: keyof typeof people) => e.discord.memberRoles(e.guildId, people[who].userId).sort();
  expect(roles('trial')).toEqual([e.roles.gold]);
  expect(roles('partial')).toEqual([e.roles.silver]);
  expect(roles('refunded')).toEqual([]);
  expect(roles('never')).toEqual([]);
  // Untouched: no Silver granted from the unreadable read, the Gold Tierlink granted not removed, the hand-given role kept.
  expect(roles('odd')).toEqual([e.roles.gold, e.roles.staff].sort());
  expect(roles('byHand')).toEqual([e.roles.gold]);

  // Logged once, with the member's id and the attribute.
  const lines = run.logs.filter((l) => l.msg === 'a member could not be read; its roles stay as they are until it can');
  expect(lines).toEqual([expect.objectContaining({ memberId: oddMember.id, attribute: 'patron_status', externalUserId: odd.id })]);
}, 120_000);

test('the dialect the first process learned is stored: the second pays no refused request, one member-list request per 1,000', async () => {
  e.patreon.generateMembers({ campaignId: e.patreon.campaignId, count: 2_500, seed: 7 });
  const run = await runSync();
  expect(run.code).toBe(0);
  expect(run.report.campaigns[0]).toMatchObject({ members: 2_506, pages: 3, unreadable: 1 });
  expect(run.requests.filter((r) => r.status === 400)).toEqual([]);
  expect(run.requests.filter((r) => r.path === membersPath).map((r) => [r.status, r.query['page[count]']])).toEqual([
    [200, '1000'],
    [200, '1000'],
    [200, '1000'],
  ]);
  // Still unreadable: counted again, but not logged again.
  expect(run.logs.filter((l) => l.memberId === people.odd.memberId)).toEqual([]);
  expect(e.discord.memberRoles(e.guildId, people.odd.userId).sort()).toEqual([e.roles.gold, e.roles.staff].sort());
}, 120_000);

test('--adopt --dry-run counts the roles patrons already hold; --adopt records them with no role request; they go when the pledge ends', async () => {
  const dry = await runSync('--adopt', '--dry-run');
  expect(dry.code).toBe(0);
  expect(dry.report.guilds[0]!.adoptions).toEqual({ planned: 1, recorded: 0 });
  expect(dry.report.guilds[0]!.changes).toEqual([
    expect.objectContaining({ op: 'adopt', userId: people.byHand.userId, roleId: e.roles.gold, outcome: 'planned' }),
  ]);

  const adopted = await runSync('--adopt');
  expect(adopted.code).toBe(0);
  expect(adopted.report.guilds[0]!.adoptions).toEqual({ planned: 1, recorded: 1 });
  expect(adopted.roleRequests).toBe(0);

  e.patreon.setMembership(
    people.byHand.patreonUserId,
    e.patreon.campaignId,
    { patronStatus: 'former_patron', tierIds: [], lastChargeStatus: 'Deleted' },
    { deliver: false },
  );
  const after = await runSync();
  expect(after.code).toBe(0);
  expect(after.report.guilds[0]!.applied.removes).toBe(1);
  expect(e.discord.memberRoles(e.guildId, people.byHand.userId)).toEqual([]);
}, 120_000);
