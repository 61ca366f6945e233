import type { REST } from '@discordjs/rest';
import { type Client, Events, type Interaction, Options } from 'discord.js';
import type { Logger } from '../../../shared/logger';
import { NO_MENTIONS, clientOnSharedRest, destroyKeepingSharedRest } from './discord-bot';

/** The action discord.js runs on a gateway INTERACTION_CREATE: builds the interaction from the raw payload and emits it. */
interface InteractionCreateAction {
  handle(data: unknown): void;
}

/**
 * discord.js keeps its gateway actions on `client.actions` (not in its typings). Reading it here,
 * in one place, is what lets an interaction that came by HTTP be the same object a gateway one is;
 * the HTTP end-to-end tests fail if a discord.js release moves it.
 */
function interactionCreateOf(client: Client): InteractionCreateAction {
  const action = (client as unknown as { actions?: { InteractionCreate?: InteractionCreateAction } }).actions?.InteractionCreate;
  if (!action || typeof action.handle !== 'function') throw new Error('this discord.js has no InteractionCreate action');
  return action;
}

/**
 * Interactions Discord POSTs to the Interactions Endpoint URL (docs/discord-api-notes.md §3), turned
 * into discord.js's own interaction objects by the very action that turns a gateway INTERACTION_CREATE
 * into one, and handed to the same router: one implementation of every command, button and
 * autocomplete, whichever way Discord delivers them. Replies go through the interaction callback
 * and webhook routes over the shared REST client, as they do for gateway interactions.
 *
 * The payload is built on the client of the shard that holds the guild when this instance holds
 * it (its cache is what a gateway interaction would see), else on a client that never connects: an
 * instance that holds no shard still answers commands behind a load balancer.
 */
export function createPayloadInteractions(deps: {
  rest: REST;
  onInteraction(interaction: Interaction): Promise<void>;
  clientFor(guildId: string): Client | null;
  logger: Logger;
}) {
  const detached = clientOnSharedRest(
    {
      intents: [],
      allowedMentions: NO_MENTIONS,
      // It never logs in: nothing to cache beyond what one interaction carries.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, UserManager: 0, GuildMemberManager: 0 }),
    },
    deps.rest,
  );
  detached.on(Events.InteractionCreate, (interaction) => {
    deps.onInteraction(interaction).catch((error: unknown) => deps.logger.error({ err: error }, 'interaction failed'));
  });

  return {
    handle(payload: Record<string, unknown>): void {
      const guildId = typeof payload.guild_id === 'string' ? payload.guild_id : null;
      const client = (guildId ? deps.clientFor(guildId) : null) ?? detached;
      interactionCreateOf(client).handle(payload);
    },
    async close(): Promise<void> {
      await destroyKeepingSharedRest(detached);
    },
  };
}
