import { decodeCursor, encodeCursor } from '../../../../src/app/dashboard/audit';
import { safeNext } from '../../../../src/app/dashboard/sign-in';
import { csvCell, csvRow } from '../../../../src/edges/inbound/web/dashboard/csv';
import { parseAuditFilter, parseSettingsForm } from '../../../../src/edges/inbound/web/dashboard/forms';

test('CSV cells are quoted where needed and never start a formula', () => {
  expect(csvRow(['plain', 3, null, 'a,b', 'say "hi"', 'two\nlines'])).toBe('plain,3,,"a,b","say ""hi""","two\nlines"\r\n');
  for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
    expect(csvCell(formula).replace(/^"/, '').startsWith("'")).toBe(true);
  expect(csvCell(-5)).toBe('-5');
  expect(csvCell(' padded ')).toBe('" padded "');
});

test('audit filters: good values pass, bad ones are dropped with a sentence, "to" is inclusive', () => {
  const ok = parseAuditFilter({
    member: '123456789012345678',
    role: '223456789012345678',
    trigger: 'webhook',
    outcome: 'held',
    action: 'remove',
    from: '2026-11-01',
    to: '2026-11-02',
  });
  expect(ok.problems).toEqual([]);
  expect(ok.query).toEqual({
    discordUserId: '123456789012345678',
    roleId: '223456789012345678',
    trigger: 'webhook',
    outcome: 'held',
    action: 'remove',
    from: new Date('2026-11-01T00:00:00Z'),
    to: new Date('2026-11-03T00:00:00Z'),
  });
  const bad = parseAuditFilter({
    member: 'bob',
    role: '1',
    trigger: 'drop table',
    outcome: 'x',
    action: 'y',
    from: '2026-02-30',
    to: ['a'],
  });
  expect(bad.query).toEqual({});
  expect(bad.problems).toHaveLength(6);
  expect(bad.form).toMatchObject({ member: '', role: '', trigger: '', outcome: '', action: '', from: '' });
});

test('the settings form is read whole; what cannot be read is named', () => {
  const full = {
    grace_days: '5',
    mode: 'highest',
    former_role: '',
    follower_role: '323456789012345678',
    strict: 'on',
    free_tiers_grant_roles: 'on',
    removal_threshold_percent: '20',
    removal_threshold_min: '0',
  };
  expect(parseSettingsForm(full)).toEqual({
    change: {
      graceDays: 5,
      mode: 'highest',
      formerPatronRoleId: null,
      followerRoleId: '323456789012345678',
      strict: true,
      freeTiersGrantRoles: true,
      removalThresholdPercent: 20,
      removalThresholdMin: 0,
    },
    problems: [],
  });
  const { change, problems } = parseSettingsForm({ ...full, grace_days: '1.5', mode: 'all', former_role: '@Gold', strict: undefined });
  expect(problems).toEqual([
    'The grace period must be a whole number.',
    'Choose whether patrons get every tier’s roles or only the highest tier’s.',
    'The former-patron role must be one of the server’s roles.',
  ]);
  expect(change.strict).toBe(false);
  // A checkbox left unticked is not sent: free tiers then grant no role.
  expect(parseSettingsForm({ ...full, free_tiers_grant_roles: undefined }).change.freeTiersGrantRoles).toBe(false);
});

test('a sign-in returns only to a dashboard path; cursors round-trip and reject anything else', () => {
  expect(safeNext('/dashboard/123/audit')).toBe('/dashboard/123/audit');
  for (const bad of ['https://evil.example', '//evil.example', '/dashboardx', '/dashboard/../admin', '/dashboard//evil', null, '']) {
    expect(safeNext(bad)).toBe('/dashboard');
  }
  const cursor = { at: new Date('2026-11-20T12:00:00.123Z'), id: 42 };
  expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  for (const bad of ['', 'x-1', '1-', '1e3-2', `${'9'.repeat(16)}-1`]) expect(decodeCursor(bad)).toBeNull();
});
