import { sql } from 'drizzle-orm';
import { translator } from '../../src/core/i18n';
import { queryRows } from '../../src/edges/outbound/store/database';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, runCommand } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';

/**
 * What the whole server sees is in the server's language: Discord's `preferred_locale`, stored when
 * the bot sees the guild (at start and on GUILD_UPDATE), unless its managers chose another. The
 * welcome of a new patron, a new post's announcement and the mod-log, end to end through the
 * stand-ins with the real discord.js client.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;
const EMBED = 1n << 14n;

let e: E2E;
let modLog: string;
let patrons: string;
let posts: string;

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('never happened');
    await new Promise((r) => setTimeout(r, 50));
  }
};

beforeAll(async () => {
  e = await startE2E({ connected: true, beforeStart: ({ discord, guildId }) => discord.setPreferredLocale(guildId, 'de') });
  const botRoleId = e.discord.guild(e.guildId).botRoleId;
  const channel = (name: string, allow: bigint) =>
    e.discord.createChannel(e.guildId, { name, overwrites: [{ id: botRoleId, type: 'role', allow }] }).id;
  modLog = channel('mod-log', VIEW | SEND | EMBED);
  patrons = channel('neue-mitglieder', VIEW | SEND);
  posts = channel('neue-beitraege', VIEW | SEND | EMBED);
  const channelOption = (name: string, channelId: string) => ({ name, type: 7, value: channelId });
  const reply = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    memberPermissions: MANAGE_ROLES,
    options: [
      channelOption('mod_log_channel', modLog),
      channelOption('announce_patrons_channel', patrons),
      channelOption('announce_posts_channel', posts),
    ],
  }).reply();
  expect(reply.content).toContain(`<#${modLog}>`);
}, 60_000);
afterAll(() => e?.stop());

const de = translator('de');

test('the server’s language is Discord’s preferred_locale, stored when the bot sees the guild', async () => {
  await until(async () => (await e.tierlink.services.repos.guilds.locale(e.guildId)) === 'de');
});

test('a new patron’s welcome and a new post’s announcement are in German', async () => {
  const user = e.patreon.createUser({ fullName: 'Nia Neu' });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { trigger: ['members:create', 'members:pledge:create'] },
  );
  const welcome = await e.discord.waitForMessage(patrons, { timeoutMs: 15_000 });
  expect(welcome.content).toBe(de('post.welcomeNobody', { newest: de('post.newestPatron'), tiers: ' (Silver)' }));
  expect(welcome.content).toBe('🎉 Willkommen, unser neuestes Mitglied (Silver)! Danke für deine Unterstützung.');

  e.patreon.publishPost(e.patreon.campaignId, { title: 'Kapitel 12', isPublic: true });
  const post = await e.discord.waitForMessage(posts, { timeoutMs: 15_000 });
  const embed = post.embeds[0] as { description: string; fields: Array<{ name: string; value: string }> };
  expect(post.content).toBe(de('post.new'));
  expect(embed.fields).toEqual([{ name: de('post.whoCanSee'), value: de('post.everyone') }]);
  for (const text of [welcome.content, post.content, embed.description]) expect(englishIn(text)).toEqual([]);
}, 60_000);

test('the mod-log is in German: what started a change, why, its footer', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'ola' }).userId;
  const patron = activePatron(e, 'Ola', [e.tiers.bronze]);
  await e.link(member, patron.id);
  const message = await e.discord.waitForMessage(modLog, {
    where: (m) => String((m.embeds[0] as { description?: string }).description).includes(`<@${member}>`),
    timeoutMs: 20_000,
  });
  const embed = message.embeds[0] as { title: string; description: string; footer: { text: string } };
  expect(embed.title).toBe(de('post.modLog.title'));
  expect(embed.description).toContain(`<@${member}> · ${de('trigger.link')}: +<@&${e.roles.bronze}>`);
  expect(embed.description).toContain(
    `<@${member}> · ${de('trigger.link')}: +<@&${e.roles.bronze}> · ${de('reason.tier', { tier: 'Bronze', standing: de('standing.active') })}`,
  );
  expect(englishIn(embed.description)).toEqual([]);
  expect(embed.footer.text).toMatch(/^Tierlink · \d+ Änderung(en)?$/);
  expect(message.allowedMentions).toEqual({ parse: [] });
}, 60_000);

describe('direct messages of a declined payment', () => {
  /** A linked patron of Silver whose payment Patreon declines; resolves with their direct messages once Tierlink acted. */
  async function declined(name: string, before?: (userId: string) => Promise<void>) {
    const patron = e.patreon.createUser({ fullName: name });
    e.patreon.setMembership(
      patron.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    const userId = e.discord.addMember(e.guildId, { username: name.toLowerCase() }).userId;
    await e.link(userId, patron.id);
    await before?.(userId);
    e.clock.advance(11_000);
    e.patreon.setMembership(
      patron.id,
      e.patreon.campaignId,
      { patronStatus: 'declined_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Declined' },
      { trigger: ['members:pledge:update'] },
    );
    await e.patreon.flushDeliveries();
    const deadline = Date.now() + 15_000;
    while (e.discord.directMessages(userId).length === 0 && Date.now() < deadline) {
      await e.tierlink.services.patronMessages.settled();
      await new Promise((r) => setTimeout(r, 50));
    }
    return e.discord.directMessages(userId);
  }

  beforeAll(async () => {
    await e.tierlink.services.repos.guilds.setPatronMessages(e.guildId, true);
  });

  test('in the patron’s language (their last command’s), else the server’s', async () => {
    const portuguese = await declined('Paula', async (userId) => {
      await runCommand(e, { userId, name: 'status', locale: 'pt-BR' }).reply();
    });
    expect(portuguese).toHaveLength(1);
    const pt = translator('pt-BR');
    expect(portuguese[0]!.content).toMatch(/^O Patreon não conseguiu cobrar seu último pagamento para \*\*.+\*\*\.\n/);
    expect(portuguese[0]!.content).toContain(pt('dm.declinedFix', { url: 'https://www.patreon.com/settings/memberships' }));
    expect(englishIn(portuguese[0]!.content)).toEqual([]);

    // Linked by the join page, say: no command of theirs ever told their language (e.link ran /link in en-US).
    const german = await declined('Greta', async (userId) => {
      await e.db.database.db.execute(sql`update member_preferences set locale = null where discord_user_id = ${userId}`);
    });
    expect(german).toHaveLength(1);
    expect(german[0]!.content).toContain(de('dm.declinedFix', { url: 'https://www.patreon.com/settings/memberships' }));
    expect(german[0]!.content).toContain(de('dm.why'));
    expect(englishIn(german[0]!.content)).toEqual([]);
  }, 60_000);
});

test('a server that changes its language in Discord is followed (GUILD_UPDATE); a manager’s choice wins over it', async () => {
  e.discord.setPreferredLocale(e.guildId, 'pt-BR');
  await until(async () => (await e.tierlink.services.repos.guilds.locale(e.guildId)) === 'pt-BR');
  await e.tierlink.services.repos.guilds.setLocale(e.guildId, 'es-ES');
  expect(await e.tierlink.services.repos.guilds.locale(e.guildId)).toBe('es-ES');
  e.discord.setPreferredLocale(e.guildId, 'de');
  // Discord's new language is stored, and the manager's choice still wins.
  const stored = async () =>
    (await queryRows<{ l: string }>(e.db.database.db, sql`select discord_locale as l from guilds where id = ${e.guildId}`))[0]?.l;
  await until(async () => (await stored()) === 'de');
  expect(await e.tierlink.services.repos.guilds.locale(e.guildId)).toBe('es-ES');
  await e.tierlink.services.repos.guilds.setLocale(e.guildId, null);
  await until(async () => (await e.tierlink.services.repos.guilds.locale(e.guildId)) === 'de');
});
