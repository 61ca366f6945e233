import { type Interaction, GuildMember, MessageFlags } from 'discord.js';
import type { Command, CommandContext } from './command';
import { type Speaker, permissionFor, speakerFor } from './speak';

/**
 * The refusal of an admin command in the member's language, saying where the permission must come
 * from (or the command's own reason).
 */
export function missingPermission(command: Command, speaker: Speaker): string {
  const { name, refusal } = command.permission!;
  if (refusal) return speaker.t(refusal);
  return speaker.t('router.missingPermission', { permission: permissionFor(speaker, name), command: command.data.name });
}

/**
 * Dispatches interactions to commands. Every command is guild-only; admin commands are deferred,
 * then the member's permission is checked at guild level, read from Discord (the channel-level
 * `member.permissions` an interaction carries is never read: a "Manage Permissions" overwrite on one
 * channel sets the Manage Roles bit there). Until `isServing()` (the configured campaigns are bound),
 * every command is answered "Tierlink is starting" and autocomplete offers nothing. Every answer is in
 * the member's language (`interaction.locale`).
 */
export function createInteractionRouter(commands: readonly Command[], ctx: CommandContext, gate: { isServing(): boolean }) {
  const byName = new Map(commands.map((c) => [c.data.name, c]));
  const withButtons = commands.filter((c) => c.button);

  /** Guild-level permission of the actor, read through the services (fresh member, cached roles). */
  const holds = (guildId: string, userId: string, command: Command) =>
    !command.permission || ctx.services.authority.holds({ guildId, userId }, command.permission.bit);

  return async function onInteraction(interaction: Interaction): Promise<void> {
    ctx.logger.debug(
      {
        id: interaction.id,
        guildId: interaction.guildId,
        type: interaction.type,
        command: 'commandName' in interaction ? interaction.commandName : null,
      },
      'interaction received',
    );
    const speaker = speakerFor(interaction);
    const { t } = speaker;
    if (!gate.isServing()) {
      // Until the configured campaigns are bound, an answer would be wrong ("not connected").
      if (interaction.isAutocomplete()) await interaction.respond([]);
      else if (interaction.isRepliable()) await interaction.reply({ content: t('router.starting'), flags: MessageFlags.Ephemeral });
      return;
    }
    if (interaction.isAutocomplete()) {
      const command = byName.get(interaction.commandName);
      try {
        // Suggestions are part of the command: a member who may not run it gets none. Autocomplete
        // must answer within 3 s on every keystroke, so it reads guild-level permissions from the
        // gateway's cache of the guild (roles, owner) rather than from Discord's API; the command
        // itself checks again from a fresh read.
        // An interaction that came by HTTP to an instance that does not hold the guild's shard has
        // no cached guild: the permission is then read as the command reads it.
        const member = interaction.member;
        const allowed =
          !command?.permission ||
          (member instanceof GuildMember
            ? member.permissions.has(command.permission.bit)
            : interaction.inGuild() && (await holds(interaction.guildId, interaction.user.id, command)));
        if (!allowed) {
          await interaction.respond([]);
          return;
        }
        await command?.autocomplete?.(interaction, ctx);
      } catch (error) {
        ctx.logger.warn({ err: error, command: interaction.commandName }, 'autocomplete failed');
        if (!interaction.responded) await interaction.respond([]).catch(() => undefined);
      }
      return;
    }
    if (interaction.isButton()) {
      const command = withButtons.find((c) => interaction.customId.startsWith(c.button!.prefix));
      if (!command || !interaction.inGuild()) return;
      try {
        await interaction.deferUpdate();
        if (!(await holds(interaction.guildId, interaction.user.id, command))) {
          await interaction.editReply({ content: missingPermission(command, speaker), components: [] });
          return;
        }
        await command.button!.press(interaction, ctx);
      } catch (error) {
        ctx.logger.error({ err: error, button: command.button!.prefix, guildId: interaction.guildId }, 'button failed');
        await interaction.editReply({ content: t('router.failed'), components: [] }).catch(() => undefined);
      }
      return;
    }
    if (!interaction.isChatInputCommand()) return;
    const command = byName.get(interaction.commandName);
    if (!command) return;
    if (!interaction.inGuild()) {
      await interaction.reply({ content: t('router.guildOnly'), flags: MessageFlags.Ephemeral });
      return;
    }
    // The member's language, for the direct messages Tierlink may send them later; never in the way of the command.
    if (interaction.locale)
      ctx.services.privacy.noteLocale(interaction.user.id, interaction.locale).catch((error: unknown) => {
        ctx.logger.warn({ err: error }, 'the member’s language was not recorded');
      });
    try {
      if (command.permission) {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
        if (!(await holds(interaction.guildId, interaction.user.id, command))) {
          await interaction.editReply({ content: missingPermission(command, speaker) });
          return;
        }
      }
      await command.execute(interaction, ctx);
    } catch (error) {
      ctx.logger.error({ err: error, command: interaction.commandName, guildId: interaction.guildId }, 'command failed');
      // "Something went wrong" without a stack trace; the details are in the log.
      const reply = { content: t('router.failed'), flags: MessageFlags.Ephemeral } as const;
      if (interaction.deferred || interaction.replied) await interaction.editReply({ content: reply.content }).catch(() => undefined);
      else await interaction.reply(reply).catch(() => undefined);
    }
  };
}
