import { createHash } from 'node:crypto';
import type { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import type { Logger } from '../../../shared/logger';
import type { Command } from './command';
import { localizeCommand } from './command-localizations';

/** Where the hash of the definitions registered last time is kept between starts. */
export interface RegisteredCommandsMemo {
  get(key: string): Promise<unknown>;
  set(key: string, hash: string): Promise<void>;
}

/**
 * Registers the slash commands with one bulk overwrite: on DISCORD_GUILD_ID when set (instant),
 * globally otherwise, each with its descriptions in German, Spanish and Portuguese. Skipped when the definitions are the ones registered last time, because
 * creating commands counts toward Discord's daily limit (docs/tech-facts.md §4).
 */
export async function registerCommands(deps: {
  rest: REST;
  applicationId: string;
  guildId: string | undefined;
  commands: readonly Command[];
  appState: RegisteredCommandsMemo;
  logger: Logger;
}): Promise<'registered' | 'unchanged'> {
  const body = deps.commands.map((c) => localizeCommand(c.data));
  const scope = deps.guildId ? `guild:${deps.guildId}` : 'global';
  const hash = createHash('sha256')
    .update(JSON.stringify({ applicationId: deps.applicationId, body }))
    .digest('hex');
  const key = `commands:${scope}`;
  if ((await deps.appState.get(key)) === hash) {
    deps.logger.debug({ scope }, 'slash commands unchanged; registration skipped');
    return 'unchanged';
  }
  const route = deps.guildId
    ? Routes.applicationGuildCommands(deps.applicationId, deps.guildId)
    : Routes.applicationCommands(deps.applicationId);
  await deps.rest.put(route, { body });
  await deps.appState.set(key, hash);
  deps.logger.info({ scope, commands: body.length }, 'slash commands registered');
  return 'registered';
}
