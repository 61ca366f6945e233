import { sql } from 'drizzle-orm';
import { translator } from '../../../../src/core/i18n';
import type { ReasonCode } from '../../../../src/core/planner';
import { heldReasonText, reasonText } from '../../../../src/core/reason-text';
import type { HeldWhy } from '../../../../src/core/sync-report';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { createRepositories } from '../../../../src/edges/outbound/store/repositories';
import { createSecretBox } from '../../../../src/edges/outbound/store/secret-box';
import { type LoadedFixture, loadReleaseFixture, releaseFixture } from '../../../support/release-fixture';
import { onPostgres } from '../../../support/test-database';

/**
 * The planner's reasons are recorded as codes beside their sentences (migration `reason-codes`):
 * rows an older release wrote keep their English sentence and no code, and are shown as recorded in
 * every language; rows written now carry the code, and read back as written.
 */

let fixture: LoadedFixture;
beforeAll(async () => {
  fixture = await loadReleaseFixture();
  await fixture.database.migrate();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const expected = releaseFixture();
const repos = () => createRepositories(fixture.database.db, createSecretBox(expected.secretKey));

test(`rows written before the migration keep their sentence and no code, shown as recorded on ${onPostgres() ? 'PostgreSQL' : 'the embedded database'}`, async () => {
  const audit = await repos().auditLog.page({ guildId: expected.guildId }, { cursor: null, direction: 'older', limit: 50 });
  expect(audit.length).toBeGreaterThan(0);
  for (const row of audit) {
    expect(row.reasonCode).toBeNull();
    expect(row.heldWhy).toBeNull();
    expect(row.reason).toMatch(/ tier \(active patron\)$/);
    for (const locale of ['de', 'pt-BR'] as const)
      expect(reasonText(translator(locale), { reason: row.reason, why: row.reasonCode })).toBe(row.reason);
  }
  const grants = await queryRows<{ reason: string; reason_code: unknown }>(
    fixture.database.db,
    sql`select reason, reason_code from role_grants`,
  );
  expect(grants.length).toBeGreaterThan(0);
  for (const g of grants) {
    expect(g.reason).toMatch(/ tier \(active patron\)$/);
    expect(g.reason_code).toBeNull();
  }
});

test('rows written now carry the code and the guard’s facts, and read back as written', async () => {
  const r = repos();
  const why: ReasonCode = { code: 'tierEnded', tier: 'Gold', standing: { kind: 'grace', basis: null, graceEndsAt: '2026-11-09' } };
  const held: HeldWhy = { code: 'threshold', removals: 30, share: 30, grants: 100, percent: 10, min: 25 };
  const userId = '1573306918502499999';
  const at = new Date('2026-11-21T12:00:00.000Z');
  await r.ledger.write(
    expected.guildId,
    [
      {
        discordUserId: userId,
        roleId: expected.roles.gold!,
        campaignId: expected.campaignId,
        tierId: expected.tiers.gold,
        kind: 'tier',
        sources: ['patreon'],
        reason: 'Gold tier (active patron)',
        why: { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } },
      },
    ],
    [],
    at,
  );
  await r.ledger.audit([
    {
      at,
      guildId: expected.guildId,
      discordUserId: userId,
      roleId: expected.roles.gold!,
      action: 'remove',
      outcome: 'held',
      trigger: 'sync',
      reason: 'no longer entitled to Gold: payment declined',
      reasonCode: why,
      error: 'held as recorded',
      heldWhy: held,
    },
  ]);
  const [row] = await r.ledger.recentAudit(expected.guildId, userId, 1);
  expect(row).toMatchObject({ reason: 'no longer entitled to Gold: payment declined', reasonCode: why, heldWhy: held });
  const de = translator('de');
  expect(reasonText(de, { reason: row!.reason, why: row!.reasonCode })).toBe(
    'kein Anspruch mehr auf Gold: Zahlung abgelehnt; Rollen bleiben bis 9. November 2026',
  );
  expect(heldReasonText(de, { reason: row!.error!, why: row!.heldWhy })).toContain('30 Entfernungen');
  const [grant] = await queryRows<{ reason_code: unknown }>(
    fixture.database.db,
    sql`select reason_code from role_grants where discord_user_id = ${userId}`,
  );
  expect(grant!.reason_code).toEqual({ code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } });

  const runId = await r.syncRuns.start({
    trigger: 'sync',
    guildId: expected.guildId,
    campaignId: null,
    dryRun: false,
    forced: false,
    startedAt: at,
  });
  await r.syncRuns.finish(runId, {
    status: 'held',
    finishedAt: at,
    pagesRead: 1,
    membersSeen: 1,
    links: 1,
    plannedAdds: 0,
    plannedRemoves: 30,
    appliedAdds: 0,
    appliedRemoves: 0,
    heldRemovals: 30,
    failedChanges: 0,
    errors: [],
    apiCalls: {},
    heldReason: 'held as recorded',
    heldWhy: held,
  });
  expect(await r.syncRuns.lastFinished(expected.guildId)).toMatchObject({ heldReason: 'held as recorded', heldWhy: held });
});
