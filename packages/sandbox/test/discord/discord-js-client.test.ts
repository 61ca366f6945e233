import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, Events, GatewayIntentBits, MessageFlags } from 'discord.js';
import type { ChatInputCommandInteraction, GuildMember } from 'discord.js';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

/** The real discord.js client against the stand-in: login, interactions, member events (docs/tech-facts.md §3). */
describe('discord.js Client against the Discord sandbox', () => {
  let sandbox: DiscordSandbox;
  let client: Client;
  let guildId: string;
  let aliceId: string;
  let goldRoleId: string;
  const pressed: Array<{ customId: string; userId: string; messageId: string }> = [];

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
    const guild = sandbox.createGuild({ name: 'Creators' });
    guildId = guild.guildId;
    goldRoleId = sandbox.createRole(guildId, { name: 'Gold' }).id;
    aliceId = sandbox.addMember(guildId, { username: 'alice' }).userId;
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      rest: { api: sandbox.apiBaseUrl },
      waitGuildTimeout: 200,
    });
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isChatInputCommand() && interaction.commandName === 'status') {
        void replyStatus(interaction);
      } else if (interaction.isChatInputCommand() && interaction.commandName === 'confirm') {
        void interaction.reply({
          content: 'Sure?',
          flags: MessageFlags.Ephemeral,
          components: [
            new ActionRowBuilder<ButtonBuilder>().addComponents(
              new ButtonBuilder().setCustomId('yes:later').setLabel('Yes (deferred)').setStyle(ButtonStyle.Danger),
              new ButtonBuilder().setCustomId('yes:now').setLabel('Yes').setStyle(ButtonStyle.Primary),
            ),
          ],
        });
      } else if (interaction.isButton()) {
        pressed.push({ customId: interaction.customId, userId: interaction.user.id, messageId: interaction.message.id });
        void (interaction.customId === 'yes:later'
          ? interaction.deferUpdate().then(() => interaction.editReply({ content: 'Done later.', components: [] }))
          : interaction.update({ content: 'Done now.', components: [] }));
      } else if (interaction.isAutocomplete()) {
        const typed = String(interaction.options.getFocused());
        void interaction.respond(['gold', 'silver', 'bronze'].filter((t) => t.startsWith(typed)).map((t) => ({ name: t, value: t })));
      }
    });
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(sandbox.botToken);
    await ready;
  });

  async function replyStatus(interaction: ChatInputCommandInteraction): Promise<void> {
    const tier = interaction.options.getString('tier') ?? 'none';
    await interaction.reply({ content: `linked, tier ${tier}`, flags: MessageFlags.Ephemeral });
  }

  afterAll(async () => {
    await client.destroy();
    await sandbox.close();
  });

  it('logs in through GET /gateway/bot and sees the guild with its roles and its own member', () => {
    const guild = client.guilds.cache.get(guildId);
    expect(guild?.available).toBe(true);
    expect(guild?.roles.cache.get(goldRoleId)?.name).toBe('Gold');
    expect(guild?.members.me?.roles.highest.name).toBe('Tierlink');
    // Gold was created below the bot's role, so discord.js agrees the bot can manage it.
    expect(guild?.roles.cache.get(goldRoleId)?.editable).toBe(true);
    expect(sandbox.requests({ route: 'GET /gateway/bot' })).toHaveLength(1);
  });

  it('delivers an injected command and records the ephemeral reply', async () => {
    const { interactionId } = sandbox.injectCommand({
      guildId,
      userId: aliceId,
      name: 'status',
      options: [{ name: 'tier', type: 3, value: 'gold' }],
    });
    const response = await sandbox.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 5_000 });
    expect(response).toMatchObject({
      kind: 'callback',
      type: 4,
      ephemeral: true,
      data: { content: 'linked, tier gold', flags: MessageFlags.Ephemeral },
    });
    expect(sandbox.interactionResponses(interactionId)).toHaveLength(1);

    const viaHttp = await fetch(`${sandbox.baseUrl}/__sandbox/interactions/${interactionId}/responses`);
    expect(viaHttp.status).toBe(200);
    const records = (await viaHttp.json()) as Array<{ type: number; data: { content: string } }>;
    expect(records.map((r) => [r.type, r.data.content])).toEqual([[4, 'linked, tier gold']]);
  });

  it('delivers an autocomplete interaction (type 4) and records the choices (type 8)', async () => {
    const { interactionId } = sandbox.injectCommand({
      guildId,
      userId: aliceId,
      name: 'map',
      options: [{ name: 'tier', type: 3, value: 'go' }],
      focused: 'tier',
    });
    const response = await sandbox.waitForInteractionResponse(interactionId, { timeoutMs: 5_000 });
    expect(response).toMatchObject({ kind: 'callback', type: 8, data: { choices: [{ name: 'gold', value: 'gold' }] } });
  });

  it('dispatches GUILD_MEMBER_ADD and discord.js emits guildMemberAdd', async () => {
    const joined = new Promise<GuildMember>((resolve) => client.once(Events.GuildMemberAdd, resolve));
    const { userId } = sandbox.addMember(guildId, { username: 'bob', roleIds: [goldRoleId] });
    const member = await joined;
    expect(member.id).toBe(userId);
    expect(member.roles.cache.has(goldRoleId)).toBe(true);
  });

  it('delivers a button press on an ephemeral reply (type 3) and lets the answer update that message (6 then edit, or 7)', async () => {
    const confirm = () => sandbox.injectCommand({ guildId, userId: aliceId, name: 'confirm' });
    const asked = confirm();
    const question = await sandbox.waitForInteractionResponse(asked.interactionId, { final: true, timeoutMs: 5_000 });
    expect(question).toMatchObject({ type: 4, ephemeral: true, data: { content: 'Sure?' } });

    const later = sandbox.pressButton({ interactionId: asked.interactionId, customId: 'yes:later' });
    const edit = await sandbox.waitForInteractionResponse(later.interactionId, { kind: 'edit', timeoutMs: 5_000 });
    expect(sandbox.interactionResponses(later.interactionId).map((r) => [r.kind, r.type ?? null, r.deferred])).toEqual([
      ['callback', 6, true],
      ['edit', null, false],
    ]);
    expect(edit).toMatchObject({ messageId: '@original', ephemeral: true, data: { content: 'Done later.', components: [] } });
    const message = (await (
      await fetch(`${sandbox.apiBaseUrl}/v10/webhooks/${sandbox.applicationId}/${asked.token}/messages/@original`)
    ).json()) as { id: string; content: string; components: unknown[] };
    // The press edited the message the button was on, not a new one.
    expect(message).toMatchObject({ content: 'Done later.', components: [] });
    expect(pressed.at(-1)).toEqual({ customId: 'yes:later', userId: aliceId, messageId: message.id });
    // The button is gone from the message: it cannot be pressed again.
    expect(() => sandbox.pressButton({ interactionId: asked.interactionId, customId: 'yes:later' })).toThrow(/no button/);

    const again = confirm();
    await sandbox.waitForInteractionResponse(again.interactionId, { final: true, timeoutMs: 5_000 });
    const now = sandbox.pressButton({ interactionId: again.interactionId, customId: 'yes:now' });
    const update = await sandbox.waitForInteractionResponse(now.interactionId, { timeoutMs: 5_000 });
    expect(update).toMatchObject({ kind: 'callback', type: 7, deferred: false, ephemeral: true, data: { content: 'Done now.' } });
  });

  it('refuses a press nobody could make: another user on an ephemeral message, a button that is not there', async () => {
    const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'confirm' });
    await sandbox.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 5_000 });
    const carol = sandbox.addMember(guildId, { username: 'carol' }).userId;
    expect(() => sandbox.pressButton({ interactionId, customId: 'yes:now', userId: carol })).toThrow(/ephemeral/);
    expect(() => sandbox.pressButton({ interactionId, customId: 'no' })).toThrow(/no button no/);
  });
});
