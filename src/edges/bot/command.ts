import type { AutocompleteInteraction, ChatInputCommandInteraction, RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import type { Logger } from '../../shared/logger';
import type { BotServices } from './bot-services';

export interface CommandContext {
  services: BotServices;
  logger: Logger;
}

/**
 * A slash command: its registration JSON, the permission checked again at run time (server admins
 * can override `default_member_permissions` per command, so it is not enough alone), and thin
 * handlers that parse options, call a service and render the reply.
 */
export interface Command {
  data: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /** Permission bit the invoking member must hold at run time, with its name for the refusal. */
  permission?: { bit: bigint; name: string };
  execute(interaction: ChatInputCommandInteraction, ctx: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, ctx: CommandContext): Promise<void>;
}
