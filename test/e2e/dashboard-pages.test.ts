import { Permission } from '@tierlink/sandbox/discord';
import { DEFAULT_SETTINGS_FORM, type DashboardBrowser, csrfToken, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { activePatron } from '../support/e2e-admin';

/**
 * The dashboard's pages against the real service and both stand-ins: a change made on a page goes
 * through the same services as the slash commands and reaches Discord; the members, the audit log
 * (filters, pages, CSV) and the syncs (preview, held removals and their confirmation).
 */

let e: E2E;
let owner: DashboardBrowser;
let mira: { discord: string; patreon: string };
let supporters: string;
let evilTier: string;

beforeAll(async () => {
  e = await startE2E({
    connected: true,
    beforeStart: (world) => {
      // A tier named like a spreadsheet formula (its patrons' reasons start with "="), granting Silver.
      const silver = world.discord.guild(world.guildId).roles.find((r) => r.name === 'Silver')!.id;
      evilTier = world.patreon.createTier(world.patreon.campaignId, {
        title: '=HYPERLINK("http://x","y")',
        amountCents: 700,
        chatRoleIds: [silver],
      }).id;
    },
  });
  supporters = e.discord.createRole(e.guildId, { name: 'Supporters' }).id;
  const patron = activePatron(e, 'Mira Okonkwo', [e.tiers.bronze]);
  mira = { discord: e.discord.addMember(e.guildId, { username: 'mira_ok', nick: 'Mira' }).userId, patreon: patron.id };
  const linked = await e.link(mira.discord, mira.patreon);
  if (linked.status !== 200) throw new Error(`link failed: ${pageText(linked.html)}`);
  await e.discord.waitForMemberRole(e.guildId, mira.discord, e.roles.bronze, { present: true });
  ({ browser: owner } = await signIn(e, e.ownerId));
}, 60_000);
afterAll(() => e?.stop());

const path = (p = '') => `/dashboard/${e.guildId}${p}`;

/** The settings form as the page sends it, strict mode unticked (free tiers' roles ticked, as by default). */
const SETTINGS_FORM = { ...DEFAULT_SETTINGS_FORM, grace_days: '3' } as const;

/** The token of a change the page shows first (the Confirm and Cancel forms carry it). */
const previewToken = (html: string) => /name="token" value="([^"]+)"/.exec(html)![1]!;

/** Confirms a change the page showed first, as a person pressing Confirm does. */
async function confirmPreview(browser: DashboardBrowser, shown: { status: number; html: string }) {
  expect(shown.status).toBe(200);
  expect(pageText(shown.html)).toContain('Make this change?');
  return browser.post(path('/changes/confirm'), { token: previewToken(shown.html) }, { csrfFrom: shown.html });
}

/** Posts a form; a change shown first is confirmed. */
async function postFrom(browser: DashboardBrowser, page: string, action: string, fields: Record<string, string>) {
  const form = await browser.get(path(page));
  let answer = await browser.post(path(action), fields, { csrfFrom: form.html });
  if (answer.status === 200) answer = await confirmPreview(browser, answer);
  expect([answer.status, answer.location]).toEqual([303, path(page)]);
  return pageText((await browser.follow(answer)).html);
}

test('Tiers and roles lists each tier with its roles; a mapping made on the page reaches a linked patron', async () => {
  const tiers = await owner.get(path('/tiers'));
  expect(tiers.status).toBe(200);
  const text = pageText(tiers.html);
  for (const title of ['Bronze', 'Silver', 'Gold']) expect(text).toContain(title);
  expect(text).toContain('tier’s role on Patreon');

  // The page shows what the mapping would do first, and changes nothing until it is confirmed.
  const asked = await owner.post(
    path('/tiers/map'),
    { tier: `${e.patreon.campaignId}:${e.tiers.bronze}`, role: supporters },
    { csrfFrom: tiers.html },
  );
  expect(asked.status).toBe(200);
  const preview = pageText(asked.html);
  expect(preview).toContain('Bronze would give @Supporters. Nothing has changed yet.');
  expect(preview).toContain('Gives @Supporters to 1 member');
  expect(preview).toContain('Removes nothing');
  expect(preview).toContain('For example: mira_ok.');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
  expect(e.discord.memberRoles(e.guildId, mira.discord)).not.toContain(supporters);
  // Cancel changes nothing, and its token is spent.
  const cancelled = await owner.post(path('/changes/cancel'), { token: previewToken(asked.html) }, { csrfFrom: asked.html });
  expect(pageText((await owner.follow(cancelled)).html)).toContain('Cancelled: nothing was changed.');
  const spent = await owner.post(path('/changes/confirm'), { token: previewToken(asked.html) }, { csrfFrom: asked.html });
  expect(pageText((await owner.follow(spent)).html)).toContain('that preview expired or was already used');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
  // Without the session's token the confirmation is refused like every form.
  const again = await owner.post(
    path('/tiers/map'),
    { tier: `${e.patreon.campaignId}:${e.tiers.bronze}`, role: supporters },
    { csrfFrom: tiers.html },
  );
  expect((await owner.post(path('/changes/confirm'), { token: previewToken(again.html) })).status).toBe(403);
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);

  const done = pageText((await owner.follow(await confirmPreview(owner, again))).html);
  expect(done).toContain('Bronze now gives @Supporters.');
  expect(done).toContain('Members’ roles updated');
  await e.discord.waitForMemberRole(e.guildId, mira.discord, supporters, { present: true, timeoutMs: 10_000 });
  expect(done).toContain('mapped here');

  // Removing it on the page takes it away again.
  const removed = await postFrom(owner, '/tiers', '/tiers/unmap', { tier: `${e.patreon.campaignId}:${e.tiers.bronze}`, role: supporters });
  expect(removed).toContain('Bronze no longer gives @Supporters.');
  await e.discord.waitForMemberRole(e.guildId, mira.discord, supporters, { present: false, timeoutMs: 10_000 });
});

test('a role the bot cannot give is refused on the page with the same words and fix as /map', async () => {
  const page = await postFrom(owner, '/tiers', '/tiers/map', { tier: 'Gold', role: e.roles.vip });
  expect(page).toContain('Nothing was changed:');
  expect(page).toContain('VIP is at or above');
  expect(page).toContain('Fix: Move the');
  const command = await e.command(
    e.ownerId,
    'map',
    [
      { name: 'tier', type: 3, value: 'Gold' },
      { name: 'role', type: 8, value: e.roles.vip },
    ],
    8n,
  );
  expect(command.content).toContain('VIP is at or above');
});

test('settings are saved through the settings service, and a value out of range is refused with its reason', async () => {
  const tiers = await owner.get(path('/tiers'));
  const base = SETTINGS_FORM;
  const shown = await owner.post(path('/settings'), base, { csrfFrom: tiers.html });
  // A shorter grace period may take roles: the page shows what it would do first, and saves nothing yet.
  expect(pageText(shown.html)).toContain('These settings would change members’ roles. Nothing has changed yet.');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).graceDays).toBe(7);
  const saved = pageText((await owner.follow(await confirmPreview(owner, shown))).html);
  expect(saved).toContain('Settings saved.');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).graceDays).toBe(3);

  const refused = pageText(
    (await owner.follow(await owner.post(path('/settings'), { ...base, grace_days: '99' }, { csrfFrom: tiers.html }))).html,
  );
  expect(refused).toContain('Nothing was changed:');
  expect(refused).toContain('grace_days must be a whole number from 0 to 60');
  const garbled = pageText(
    (await owner.follow(await owner.post(path('/settings'), { ...base, mode: 'loud', former_role: 'x' }, { csrfFrom: tiers.html }))).html,
  );
  expect(garbled).toContain('Choose whether patrons get every tier’s roles');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).graceDays).toBe(3);
});

test('a form without the session’s token, or sent from another site, changes nothing', async () => {
  const tiers = await owner.get(path('/tiers'));
  const token = csrfToken(tiers.html);
  const fields = {
    grace_days: '9',
    mode: 'stack',
    former_role: '',
    follower_role: '',
    removal_threshold_percent: '10',
    removal_threshold_min: '25',
  };
  expect((await owner.post(path('/settings'), fields)).status).toBe(403);
  expect((await owner.post(path('/settings'), { ...fields, _csrf: `${token.slice(0, -2)}xx` })).status).toBe(403);
  expect((await owner.post(path('/settings'), { ...fields, _csrf: token }, { origin: 'https://evil.example' })).status).toBe(403);
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).graceDays).not.toBe(9);
});

test('Members finds a member by Discord name or Patreon name, and explains their roles', async () => {
  for (const query of ['mira_', 'Mira', 'okonkwo']) {
    const found = await owner.get(path(`/members?q=${encodeURIComponent(query)}`));
    expect([query, found.status]).toEqual([query, 200]);
    expect(found.html).toContain(path(`/members/${mira.discord}`));
  }
  const none = await owner.get(path('/members?q=zzzz'));
  expect(pageText(none.html)).toContain('Nobody matches');

  const detail = pageText((await owner.get(path(`/members/${mira.discord}`))).html);
  expect(detail).toContain('Linked to Patreon.');
  expect(detail).toContain('Mira Okonkwo on Patreon');
  expect(detail).toContain('@Bronze');
  expect(detail).toMatch(/Bronze tier \(active patron/);
  expect(detail).toContain('Last role changes');
});

test('the audit log filters, pages and exports as CSV without formulas', async () => {
  const all = await owner.get(path('/audit'));
  expect(all.status).toBe(200);
  expect(pageText(all.html)).toContain('Mira Okonkwo');
  const byMember = await owner.get(path(`/audit?member=${mira.discord}&outcome=applied&action=add`));
  expect(pageText(byMember.html)).toContain('gave @Bronze');
  const noneFailed = await owner.get(path(`/audit?member=${mira.discord}&outcome=failed`));
  expect(pageText(noneFailed.html)).toContain('No role changes match.');
  const bad = await owner.get(path('/audit?member=abc&from=2026-13-40'));
  expect(pageText(bad.html)).toContain('The member filter takes a Discord user id');
  expect(pageText(bad.html)).toContain('The “from” date must be a date');
  const future = await owner.get(path('/audit?from=2030-01-01'));
  expect(pageText(future.html)).toContain('No role changes match.');

  // A tier named like a formula: its patrons' reasons start with "=", and the export must not run it.
  const patron = activePatron(e, '@Mallory, "the" tester', [evilTier]);
  const mallory = e.discord.addMember(e.guildId, { username: 'mallory' }).userId;
  await e.link(mallory, patron.id);
  await e.discord.waitForMemberRole(e.guildId, mallory, e.roles.silver, { present: true });
  const csv = await owner.get(path(`/audit.csv?member=${mallory}`));
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="tierlink-audit-\d+\.csv"$/);
  const lines = csv.html
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');
  expect(lines[0]).toBe('time (UTC),member id,patreon name,role id,role,change,outcome,trigger,reason,error');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(
    `,${mallory},"'@Mallory, ""the"" tester",${e.roles.silver},Silver,add,applied,link,"'=HYPERLINK(""http://x"",""y"") tier`,
  );
});

test('Syncs previews a sync, then lists the removals the guard held and applies them on confirmation', async () => {
  const before = await owner.get(path('/syncs'));
  expect(pageText(before.html)).toContain('History');
  // Mira's pledge ends: her Bronze comes off at the next sync, but the guard (1% of grants, any
  // number) holds the removal.
  await postFrom(owner, '/tiers', '/settings', {
    grace_days: '0',
    mode: 'stack',
    former_role: '',
    follower_role: '',
    removal_threshold_percent: '1',
    removal_threshold_min: '0',
  });
  e.patreon.setMembership(mira.patreon, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });

  const preview = await owner.post(path('/syncs/preview'), {}, { csrfFrom: before.html });
  expect(preview.status).toBe(200);
  const planned = pageText(preview.html);
  expect(planned).toContain('Preview: what a sync would change now');
  expect(planned).toMatch(/take away @Bronze/);
  expect(planned).toContain('The guard would hold');
  expect(e.discord.memberRoles(e.guildId, mira.discord)).toContain(e.roles.bronze);

  const run = await owner.post(path('/syncs/apply'), { force: '0' }, { csrfFrom: before.html });
  const afterRun = pageText((await owner.follow(run)).html);
  expect(afterRun).toContain('1 removal was held again');
  expect(afterRun).toMatch(/1 removal held back/);
  expect(afterRun).toContain('took away @Bronze');
  expect(e.discord.memberRoles(e.guildId, mira.discord)).toContain(e.roles.bronze);

  // Without the confirmation box, nothing happens; with it, the held removal is made.
  const page = await owner.get(path('/syncs'));
  const unconfirmed = pageText((await owner.follow(await owner.post(path('/syncs/apply'), { force: '1' }, { csrfFrom: page.html }))).html);
  expect(unconfirmed).toContain('Tick the box to confirm the removals');
  expect(e.discord.memberRoles(e.guildId, mira.discord)).toContain(e.roles.bronze);
  const confirmed = pageText(
    (await owner.follow(await owner.post(path('/syncs/apply'), { force: '1', confirm: 'yes' }, { csrfFrom: page.html }))).html,
  );
  expect(confirmed).toMatch(/Sync done: \d+ given, 1 taken away/);
  expect(e.discord.memberRoles(e.guildId, mira.discord)).not.toContain(e.roles.bronze);
  expect(confirmed).not.toContain('held back');
});

test('a member with Manage Server but not Manage Roles sees the pages but cannot change anything', async () => {
  const managers = e.discord.createRole(e.guildId, { name: 'Managers', permissions: Permission.ManageGuild }).id;
  const manager = e.discord.addMember(e.guildId, { username: 'manager', roleIds: [managers] }).userId;
  const { browser } = await signIn(e, manager);
  const tiers = await browser.get(path('/tiers'));
  expect(tiers.status).toBe(200);
  expect(pageText(tiers.html)).toContain('You can look but not change');
  expect(tiers.html).toMatch(/<button class="btn" type="submit" disabled>Give this role<\/button>/);
  const refused = await browser.post(path('/tiers/map'), { tier: 'Gold', role: supporters }, { csrfFrom: tiers.html });
  expect(pageText((await browser.follow(refused)).html)).toContain('Changes need the Manage Roles permission');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
});

test('strict mode is turned on from the page only after a preview and a confirmation, as in Discord', async () => {
  const holder = e.discord.addMember(e.guildId, { username: 'hand_gold', roleIds: [e.roles.gold] }).userId;
  const base = SETTINGS_FORM;
  const tiers = await owner.get(path('/tiers'));
  // The form also moves the grace period and free tiers back: that change is shown first, then strict mode's own preview.
  const first = await owner.post(path('/settings'), { ...base, strict: 'on' }, { csrfFrom: tiers.html });
  const asked = await confirmPreview(owner, first);
  expect(asked.status).toBe(200);
  const preview = pageText(asked.html);
  expect(preview).toContain('Turn strict mode on?');
  expect(preview).toMatch(/@Gold from 1 member/);
  expect(preview).toContain('hand_gold');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(false);
  const confirmation = /name="confirmation" value="([^"]+)"/.exec(asked.html)![1]!;

  // Not ticked, or altered: strict stays off and the role stays.
  const unticked = await owner.post(path('/settings/strict'), { confirmation }, { csrfFrom: asked.html });
  expect(pageText((await owner.follow(unticked)).html)).toContain('Strict mode stays off: tick the box');
  const altered = await owner.post(
    path('/settings/strict'),
    { confirmation: `${confirmation}x`, confirm: 'yes' },
    { csrfFrom: asked.html },
  );
  expect(pageText((await owner.follow(altered)).html)).toContain('that confirmation was not made for you here');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(false);
  expect(e.discord.memberRoles(e.guildId, holder)).toContain(e.roles.gold);

  const confirmed = await owner.post(path('/settings/strict'), { confirmation, confirm: 'yes' }, { csrfFrom: asked.html });
  expect([confirmed.status, confirmed.location]).toEqual([303, path('/tiers')]);
  expect(pageText((await owner.follow(confirmed)).html)).toContain('Strict mode is on.');
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(true);
  await e.discord.waitForMemberRole(e.guildId, holder, e.roles.gold, { present: false, timeoutMs: 10_000 });

  // Turned off again with the form (the box left unticked), at once.
  const off = await owner.post(path('/settings'), base, { csrfFrom: tiers.html });
  expect(off.status).toBe(303);
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(false);
});
