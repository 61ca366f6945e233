import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { MessageKey } from '../../../core/i18n';
import type { Logger } from '../../../shared/logger';
import type { BotServices } from './bot-services';

export interface CommandContext {
  services: BotServices;
  logger: Logger;
}

/**
 * A slash command: its registration JSON, the permission checked again at run time (server admins
 * can override `default_member_permissions` per command, so it is not enough alone), and thin
 * handlers that parse options, call a service and render the reply.
 *
 * A command with a `permission` is deferred (ephemeral) by the router, which then checks the
 * permission at guild level (the member's roles, read from Discord); `execute` answers with
 * `editReply`. Services check again whatever concerns a role.
 */
export interface Command {
  data: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /**
   * Permission bit the invoking member must hold at run time, with its name for the refusal;
   * `refusal` (a message key) replaces the generic sentence where the command's own reason says it
   * better. `name` is Discord's English name of the permission (`perm.*` in the catalogues).
   */
  permission?: { bit: bigint; name: string; refusal?: Extract<MessageKey, `${string}.refusal`> };
  execute(interaction: ChatInputCommandInteraction, ctx: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, ctx: CommandContext): Promise<void>;
  /**
   * Buttons on this command's replies, recognised by their `custom_id` prefix. The router defers
   * the update and checks the command's `permission` first, as for the command itself.
   */
  button?: { prefix: string; press(interaction: ButtonInteraction, ctx: CommandContext): Promise<void> };
}
