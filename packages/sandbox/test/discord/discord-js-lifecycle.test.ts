import { Client, Events, GatewayIntentBits, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { GuildMember, PartialGuildMember, Role } from 'discord.js';
import { CloseCode, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

function newClient(sandbox: DiscordSandbox, intents: GatewayIntentBits[]): Client {
  return new Client({ intents, rest: { api: sandbox.apiBaseUrl }, waitGuildTimeout: 200 });
}

async function logIn(client: Client, token: string): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(token);
  await ready;
}

/** The next emission of `event` whose arguments satisfy `accept`. */
function next<T extends unknown[]>(client: Client, event: string, accept: (...args: T) => boolean = () => true): Promise<T> {
  return new Promise<T>((resolve) => {
    const listener = (...args: unknown[]): void => {
      if (!accept(...(args as T))) return;
      client.off(event, listener);
      resolve(args as T);
    };
    client.on(event, listener);
  });
}

describe('privileged intents', () => {
  it('closes the gateway with 4014 when GUILD_MEMBERS is requested but not enabled, and accepts GUILDS alone', async () => {
    const sandbox = await createDiscordSandbox({ membersIntentEnabled: false });
    sandbox.createGuild();
    const refused = newClient(sandbox, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers]);
    const allowed = newClient(sandbox, [GatewayIntentBits.Guilds]);
    try {
      await expect(refused.login(sandbox.botToken)).rejects.toThrow(/disallowed intents/i);
      expect(sandbox.gatewayCloses().map((c) => c.code)).toEqual([CloseCode.DisallowedIntents]);
      await logIn(allowed, sandbox.botToken);
      expect(allowed.guilds.cache.size).toBe(1);
    } finally {
      await refused.destroy();
      await allowed.destroy();
      await sandbox.close();
    }
  });

  it('refuses a wrong token at GET /gateway/bot with 401 before any gateway connection', async () => {
    const sandbox = await createDiscordSandbox();
    const client = newClient(sandbox, [GatewayIntentBits.Guilds]);
    try {
      // The REST call to /gateway/bot fails first with 401, as with a wrong token on Discord.
      await expect(client.login('not-the-token')).rejects.toThrow();
      expect(sandbox.requests().map((r) => `${r.route} ${r.status}`)).toEqual(['GET /gateway/bot 401']);
    } finally {
      await client.destroy();
      await sandbox.close();
    }
  });
});

describe('discord.js cache and replies against the Discord sandbox', () => {
  let sandbox: DiscordSandbox;
  let client: Client;
  let guildId: string;
  let aliceId: string;

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId } = sandbox.createGuild({ name: 'Creators' }));
    aliceId = sandbox.addMember(guildId, { username: 'alice' }).userId;
    client = newClient(sandbox, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers]);
    client.on(Events.InteractionCreate, (interaction) => {
      if (!interaction.isChatInputCommand() || interaction.commandName !== 'sync') return;
      void (async () => {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
        await interaction.editReply({ content: 'synced 3 members' });
        await interaction.followUp({ content: 'details', flags: MessageFlags.Ephemeral });
      })();
    });
    await logIn(client, sandbox.botToken);
  });

  afterAll(async () => {
    await client.destroy();
    await sandbox.close();
  });

  it('records a deferred reply, its edit of @original and a follow-up, in order', async () => {
    const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'sync', subcommand: 'now' });
    const final = await sandbox.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 5_000 });
    expect(final).toMatchObject({ kind: 'edit', messageId: '@original', data: { content: 'synced 3 members' }, ephemeral: true });
    await sandbox.waitForInteractionResponse(interactionId, { kind: 'followup', timeoutMs: 5_000 });
    expect(sandbox.interactionResponses(interactionId).map((r) => `${r.kind}:${r.type ?? ''}:${r.deferred}`)).toEqual([
      'callback:5:true',
      'edit::false',
      'followup::false',
    ]);
  });

  it('keeps the role cache truthful through GUILD_ROLE_CREATE / UPDATE / DELETE', async () => {
    const guild = client.guilds.cache.get(guildId);
    const created = next<[Role]>(client, Events.GuildRoleCreate);
    const gold = sandbox.createRole(guildId, { name: 'Gold' });
    expect((await created)[0].id).toBe(gold.id);
    expect(guild?.roles.cache.get(gold.id)?.editable).toBe(true);

    const updated = next<[Role, Role]>(client, Events.GuildRoleUpdate, (_old, role) => role.id === gold.id);
    sandbox.updateRole(guildId, gold.id, { position: 50 });
    await updated;
    expect(guild?.roles.cache.get(gold.id)?.editable).toBe(false);

    const deleted = next<[Role]>(client, Events.GuildRoleDelete);
    sandbox.deleteRole(guildId, gold.id);
    expect((await deleted)[0].id).toBe(gold.id);
    expect(guild?.roles.cache.has(gold.id)).toBe(false);
  });

  it('dispatches GUILD_MEMBER_UPDATE when roles change by hand, and GUILD_MEMBER_REMOVE', async () => {
    const silver = sandbox.createRole(guildId, { name: 'Silver' });
    const guild = client.guilds.cache.get(guildId);
    await guild?.members.fetch(aliceId);
    const updated = next<[GuildMember | PartialGuildMember, GuildMember]>(client, Events.GuildMemberUpdate);
    sandbox.setMemberRolesByHand(guildId, aliceId, [silver.id]);
    const [, after] = await updated;
    expect([...after.roles.cache.keys()].sort()).toEqual([guildId, silver.id].sort());

    const removed = next<[GuildMember | PartialGuildMember]>(client, Events.GuildMemberRemove);
    sandbox.removeMember(guildId, aliceId);
    expect((await removed)[0].id).toBe(aliceId);
  });

  it('resumes after the sandbox drops the connection, replaying what was missed', async () => {
    const resumed = next<[number]>(client, Events.ShardResume);
    sandbox.disconnectGateway(CloseCode.UnknownError);
    const joined = next<[GuildMember]>(client, Events.GuildMemberAdd);
    const { userId } = sandbox.addMember(guildId, { username: 'carol' });
    await resumed;
    expect((await joined)[0].id).toBe(userId);
    expect(sandbox.requests({ route: 'GET /gateway/bot' })).toHaveLength(1);
  });

  it('registers guild commands through discord.js and counts the bulk overwrite', async () => {
    const link = new SlashCommandBuilder().setName('link').setDescription('Link your membership');
    const map = new SlashCommandBuilder()
      .setName('map')
      .setDescription('Map a tier to a role')
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
      .addStringOption((o) => o.setName('tier').setDescription('Tier').setAutocomplete(true).setRequired(true))
      .addRoleOption((o) => o.setName('role').setDescription('Role').setRequired(true));
    const registered = await client.application?.commands.set([link.toJSON(), map.toJSON()], guildId);
    expect(registered?.map((c) => c.name).sort()).toEqual(['link', 'map']);
    expect(sandbox.commands(guildId).find((c) => c.name === 'map')?.default_member_permissions).toBe('268435456');
    expect(sandbox.commandPutCount(guildId)).toBe(1);

    const role = sandbox.createRole(guildId, { name: 'Bronze' });
    const seen = new Promise<string | undefined>((resolve) => {
      client.once(Events.InteractionCreate, (interaction) => {
        if (interaction.isChatInputCommand()) resolve(interaction.options.getRole('role')?.name);
      });
    });
    const bob = sandbox.addMember(guildId, { username: 'bob' }).userId;
    sandbox.injectCommand({
      guildId,
      userId: bob,
      name: 'map',
      options: [
        { name: 'tier', type: 3, value: 'gold' },
        { name: 'role', type: 8, value: role.id },
      ],
    });
    expect(await seen).toBe('Bronze');
  });
});
