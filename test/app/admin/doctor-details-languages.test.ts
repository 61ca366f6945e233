import { type DoctorCheck, checkDetail, checkFix, renderDoctor } from '../../../src/app/admin/doctor';
import { gatewayCheck } from '../../../src/app/admin/gateway-check';
import { patreonBotCheck, unreadableMembersCheck } from '../../../src/app/admin/membership-checks';
import { oddValuesCheck } from '../../../src/app/admin/odd-values-check';
import { type LastSync, syncChecks } from '../../../src/app/admin/sync-checks';
import { type BackupRecord, createScheduledBackups } from '../../../src/app/housekeeping/scheduled-backups';
import { LOCALES, type Locale, translator } from '../../../src/core/i18n';
import type { SyncProgress } from '../../../src/core/sync-report';
import type { GatewayStanding } from '../../../src/edges/outbound/store/instance-registry';
import { englishIn } from '../../support/english-leaks';

/**
 * `/doctor`'s details that were English: the gateway's shards, unreadable members, Patreon's odd
 * answers, the sync in progress, the last sync's status and errors, and backups. English is the
 * checks' own sentence, word for word; every other language says them from their keys, keeping the
 * words of the source (an error as it came, a file's name, an attribute) as they are.
 */

const OTHERS = LOCALES.filter((l): l is Exclude<Locale, 'en'> => l !== 'en');
const NOW = new Date('2026-11-28T12:00:00Z');
const clock = { now: () => NOW };
const GUILD_ON_1 = String((5n << 22n) | 123n);

const gatewayDown = (): DoctorCheck[] =>
  gatewayCheck(
    {
      shardCount: 2,
      shards: [
        { shardId: 0, holder: null, connected: false },
        { shardId: 1, holder: { id: 'b4f1c2d3-aaaa', host: 'tierlink-2', pid: 4242 }, connected: false },
      ],
    } as GatewayStanding,
    GUILD_ON_1,
  );

const unreadable = () =>
  unreadableMembersCheck(
    {
      unreadable: async () => ({
        total: 5,
        members: [
          {
            source: 'patreon',
            campaignId: 'c1',
            memberId: 'm-1',
            externalUserId: null,
            mark: { attribute: 'patron_status', reason: 'unknown value', since: '2026-11-27T10:00:00Z' },
          },
        ],
      }),
    } as never,
    ['c1'],
  );

const odd = () =>
  oddValuesCheck({
    oddValues: {
      list: async () => [
        { type: 'tier', attribute: 'title', found: 'null', exampleId: '77', count: 1, firstSeen: '', lastSeen: '2026-11-27T09:30:00Z' },
        {
          type: 'user',
          attribute: 'full_name',
          found: 'missing',
          exampleId: '8',
          count: 3,
          firstSeen: '',
          lastSeen: '2026-11-26T09:30:00Z',
        },
        {
          type: 'member',
          attribute: 'is_follower',
          found: 'string',
          exampleId: 'm9',
          count: 2,
          firstSeen: '',
          lastSeen: '2026-11-25T09:30:00Z',
        },
      ],
    },
  } as never);

const progress: SyncProgress = {
  runId: 1,
  guildId: 'g',
  startedAt: '2026-11-28T04:00:00Z',
  phase: 'applying',
  campaignMembersRead: 30000,
  serverMembersRead: 31000,
  changesPlanned: 12695,
  changesDone: 1234,
  estimatedEndAt: '2026-11-28T07:31:00Z',
  updatedAt: null,
};

const syncs = (last: LastSync | null, running: SyncProgress | null) =>
  syncChecks({ clock, lastSync: async () => last, runningSync: async () => running }, 'g');

const failedSync: LastSync = {
  startedAt: new Date('2026-11-27T04:00:00Z'),
  finishedAt: new Date('2026-11-27T04:10:00Z'),
  status: 'failed',
  heldRemovals: 0,
  heldReason: null,
  errors: ['Discord answered 503 Service Unavailable'],
};
const staleSync: LastSync = { ...failedSync, startedAt: new Date('2026-11-20T04:00:00Z'), status: 'ok', errors: [] };

function backups(record: BackupRecord | null) {
  return createScheduledBackups({
    dir: '/var/backups/tierlink',
    keep: 7,
    schedule: '30 3 * * *',
    timezone: 'Europe/Berlin',
    run: (async () => undefined) as never,
    folder: { list: async () => [], remove: async () => undefined, path: (n: string) => n },
    state: { get: async () => record, set: async () => undefined } as never,
    withLock: (async () => ({ acquired: false })) as never,
    clock: clock as never,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined } as never,
  }).doctorCheck();
}

/** Patreon's own bot in the server, beside a tier whose Discord role Tierlink grants too (and beside none). */
const patreonBot = (roleIds: string[]) =>
  patreonBotCheck(
    { getMember: async () => ({ userId: 'p', roleIds: [] }) } as never,
    {
      guildId: 'g',
      tiers: [{ removed: false, roleIds }],
      roles: new Map([['r-gold', { id: 'r-gold', name: 'Gold' }]]),
    } as never,
  );

async function everyCheck(): Promise<DoctorCheck[]> {
  return [
    ...gatewayDown(),
    (await unreadable())!,
    (await odd())!,
    ...(await syncs(failedSync, progress)),
    ...(await syncs(staleSync, null)),
    ...(await syncs({ ...failedSync, errors: [] }, null)),
    await backups(null),
    await backups({
      at: '2026-11-28T02:30:00Z',
      ok: false,
      file: null,
      bytes: null,
      error: 'ENOSPC: no space left on device',
      lastOkAt: '2026-11-27T02:30:00Z',
      lastOkFile: 'tierlink-backup-20261127T023000Z.jsonl.gz',
    }),
    await backups({
      at: '2026-11-28T02:30:00Z',
      ok: true,
      file: 'tierlink-backup-20261128T023000Z.jsonl.gz',
      bytes: 5_300_000,
      error: null,
      lastOkAt: null,
      lastOkFile: null,
    }),
    (await patreonBot(['r-gold']))!,
    (await patreonBot([]))!,
  ];
}

test('English is the checks’ own sentence, word for word', async () => {
  const checks = await everyCheck();
  const en = translator('en');
  expect(checks.map((c) => checkDetail(en, c))).toEqual(checks.map((c) => c.detail));
  expect(checks[0]!.detail).toBe(
    'shard 1 (this server’s) is held by the instance on tierlink-2 (pid 4242) without a gateway session; no instance holds shard 0: commands and rejoining members of their servers go unanswered',
  );
  expect(checks[1]!.detail).toBe(
    'Patreon answered 5 members with values Tierlink cannot read, so their roles are left exactly as they are: member m-1 (patron_status unknown value, since 2026-11-27 10:00 UTC) and 4 more',
  );
  expect(checks[3]!.detail).toBe(
    'applying: 1,234 of 12,695 changes done (31,000 members read); started 2026-11-28 04:00 UTC, estimated end 2026-11-28 07:31 UTC',
  );
  expect(checks[4]).toMatchObject({ detail: '2026-11-27 04:00 UTC: Discord answered 503 Service Unavailable' });
  expect(checks[5]).toMatchObject({ detail: '2026-11-20 04:00 UTC: ok', fix: expect.stringContaining('two days') });
  expect(checks.at(-3)!.detail).toBe(
    'the last at 2026-11-28 02:30 UTC: tierlink-backup-20261128T023000Z.jsonl.gz (5,176 KB) in /var/backups/tierlink; the newest 7 are kept',
  );
  // English stays the same in the reply too.
  expect(renderDoctor(checks)).toContain('❌ **Discord gateway**: shard 1 (this server’s)');
});

describe.each(OTHERS)('%s', (locale) => {
  const t = translator(locale);

  test('each detail and fix in the language, the source’s own words kept as they came', async () => {
    const checks = await everyCheck();
    for (const check of checks) {
      expect(check.said).toBeDefined();
      const detail = checkDetail(t, check);
      const fix = checkFix(t, check);
      expect(detail).not.toBe(check.detail);
      expect(englishIn(detail)).toEqual([]);
      if (fix !== null) expect(englishIn(fix)).toEqual([]);
      if (check.fix !== null) expect(fix).not.toBe(check.fix);
    }
    const [gateway, members, answers, running, failed, stale, status, none, broken, last, bot] = checks.map((c) => checkDetail(t, c));
    expect(bot).toBe(t('doctorSays.patreonBot', { roles: 'Gold' }));
    expect(gateway).toContain('tierlink-2');
    expect(gateway).toContain(t('doctorSays.shardOwn', { id: '1' }));
    expect(members).toContain(
      t('doctorSays.unreadableMember', { id: 'm-1', attribute: 'patron_status', reason: 'unknown value', since: '2026-11-27 10:00 UTC' }),
    );
    expect(members).toContain(t('doctorSays.andMore', { count: 4 }).trim());
    expect(answers).toContain(t('doctorSays.oddWhat.title'));
    expect(answers).toContain(t('doctorSays.oddAs', { value: 'string' }));
    // Counts the language's way ("1.234" in German).
    expect(running).toContain(new Intl.NumberFormat(locale).format(12695));
    // What the sync answered, as it came, inside a sentence of the reader's language.
    expect(failed).toBe(t('doctorSays.syncError', { when: '2026-11-27 04:00 UTC', error: 'Discord answered 503 Service Unavailable' }));
    expect(stale).toBe(`2026-11-20 04:00 UTC: ${t('doctorSays.status.ok')}`);
    expect(status).toBe(`2026-11-27 04:00 UTC: ${t('doctorSays.status.failed')}`);
    expect(none).toContain('/var/backups/tierlink');
    expect(broken).toContain('ENOSPC: no space left on device');
    expect(broken).toContain('tierlink-backup-20261127T023000Z.jsonl.gz');
    expect(last).toContain(new Intl.NumberFormat(locale).format(5176));
    const reply = renderDoctor(checks, t);
    expect(reply).toContain(`**${t('doctor.check.Discord gateway')}**`);
    expect(englishIn(reply)).toEqual([]);
  });
});
