import { type Interaction, MessageFlags } from 'discord.js';
import type { Command, CommandContext } from './command';

/** "Something went wrong" without a stack trace; the details go to the log. */
const FAILURE = 'Something went wrong on Tierlink’s side. The problem was logged; please try again in a minute.';

/** Until the configured campaigns are bound, an answer would be wrong ("not connected"): say so instead. */
export const STARTING = 'Tierlink is starting, try again in a few seconds.';

/**
 * Dispatches interactions to commands. Every command is guild-only; admin commands check the
 * member's permissions again at run time. Until `isServing()` (the configured campaigns are bound),
 * every command is answered {@link STARTING} and autocomplete offers nothing.
 */
export function createInteractionRouter(commands: readonly Command[], ctx: CommandContext, gate: { isServing(): boolean }) {
  const byName = new Map(commands.map((c) => [c.data.name, c]));
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
    if (!gate.isServing()) {
      if (interaction.isAutocomplete()) await interaction.respond([]);
      else if (interaction.isRepliable()) await interaction.reply({ content: STARTING, flags: MessageFlags.Ephemeral });
      return;
    }
    if (interaction.isAutocomplete()) {
      const command = byName.get(interaction.commandName);
      try {
        // Suggestions are part of the command: a member who may not run it gets none.
        if (command?.permission && !interaction.memberPermissions?.has(command.permission.bit)) {
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
    if (!interaction.isChatInputCommand()) return;
    const command = byName.get(interaction.commandName);
    if (!command) return;
    if (!interaction.inGuild()) {
      await interaction.reply({ content: 'Tierlink commands work inside a server.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (command.permission && !interaction.memberPermissions.has(command.permission.bit)) {
      await interaction.reply({
        content: `You need the **${command.permission.name}** permission to use /${command.data.name}.`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    try {
      await command.execute(interaction, ctx);
    } catch (error) {
      ctx.logger.error({ err: error, command: interaction.commandName, guildId: interaction.guildId }, 'command failed');
      const reply = { content: FAILURE, flags: MessageFlags.Ephemeral } as const;
      if (interaction.deferred || interaction.replied) await interaction.editReply({ content: FAILURE }).catch(() => undefined);
      else await interaction.reply(reply).catch(() => undefined);
    }
  };
}
