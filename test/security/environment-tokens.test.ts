import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, runCommand } from '../support/e2e-admin';

/**
 * Attack: the operator put the creator's tokens in the environment; someone else adds the (public)
 * bot to their own server. Refusal: the tokens bind only DISCORD_GUILD_ID and DISCORD_GUILD_IDS, the
 * log says what stayed unbound and /doctor says how to bind it; /doctor warns that the bot is public.
 */

const STRANGER = '100000000000000077';
const doctor = async (e: E2E, guildId: string, userId = e.ownerId) =>
  (await runCommand(e, { guildId, userId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply()).content;

describe('creator tokens in the environment without DISCORD_GUILD_ID or DISCORD_GUILD_IDS', () => {
  let e: E2E;
  let strangers: string;
  beforeAll(async () => {
    e = await startE2E({
      creatorTokensInEnv: true,
      env: { DISCORD_GUILD_ID: '' },
      beforeStart: ({ discord }) => {
        strangers = discord.createGuild({ name: 'Somebody else’s server', ownerId: STRANGER }).guildId;
      },
    });
  }, 60_000);
  afterAll(() => e?.stop());

  test('connect the creator and bind no server: neither the operator’s nor one that merely added the bot', async () => {
    const { repos } = e.tierlink.services;
    expect(await repos.credentials.creators()).toEqual([e.patreon.creatorUserId]);
    expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([]);
    expect(await repos.guilds.campaignsOf(strangers)).toEqual([]);
    expect(e.log.text()).toContain('neither DISCORD_GUILD_ID nor DISCORD_GUILD_IDS names a server');
    const unbound = e.log.lines.map((l) => JSON.parse(l) as { msg: string; guilds?: string[] }).find((l) => /do not bind/.test(l.msg));
    expect(unbound?.guilds?.sort()).toEqual([e.guildId, strangers].sort());
  });

  test('/doctor in such a server says why it is not bound and how to bind it', async () => {
    const content = await doctor(e, strangers, STRANGER);
    expect(content).toContain(
      `❌ **Campaign**: no Patreon campaign is connected to this server: the creator tokens in Tierlink’s environment bind only the servers named in DISCORD_GUILD_ID and DISCORD_GUILD_IDS, and this one (${strangers}) is not among them`,
    );
    expect(content).toContain(
      `**Fix:** Run /connect and sign in as the creator, or add ${strangers} to DISCORD_GUILD_IDS and restart Tierlink.`,
    );
  });

  test('/doctor warns while the bot is public (anyone can add it), and stops once Public Bot is off', async () => {
    e.discord.setBotPublic(true);
    e.clock.advance(6 * 60_000); // the answer of GET /applications/@me is kept 5 minutes
    expect(await doctor(e, e.guildId)).toContain(
      '❌ **Who can add Tierlink**: anyone can add Tierlink to their own server (the application is public)',
    );
    e.discord.setBotPublic(false);
    e.clock.advance(6 * 60_000); // the answer of GET /applications/@me is kept 5 minutes
    expect(await doctor(e, e.guildId)).toContain('✅ **Who can add Tierlink**: only the application’s owner can add Tierlink to a server');
  });
});

describe('creator tokens in the environment with DISCORD_GUILD_IDS', () => {
  let e: E2E;
  let listed: string;
  let strangers: string;
  beforeAll(async () => {
    e = await startE2E({
      creatorTokensInEnv: true,
      env: { DISCORD_GUILD_ID: '' },
      beforeStart: ({ discord }) => {
        listed = discord.createGuild({ name: 'Second server of the creator' }).guildId;
        strangers = discord.createGuild({ name: 'Somebody else’s server' }).guildId;
        return { DISCORD_GUILD_IDS: listed };
      },
    });
  }, 60_000);
  afterAll(() => e?.stop());

  test('bind exactly the listed servers', async () => {
    const { repos } = e.tierlink.services;
    expect(await repos.guilds.campaignsOf(listed)).toEqual([e.patreon.campaignId]);
    expect(await repos.guilds.campaignsOf(strangers)).toEqual([]);
    expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([]);
  });
});
