import { Client, Events } from 'discord.js';
import type { ClientOptions, GatewayIntentBits } from 'discord.js';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

/** A real discord.js client logged in to the stand-in and ready (its guilds cached). */
export async function readyClient(
  sandbox: DiscordSandbox,
  intents: GatewayIntentBits[],
  options: Partial<ClientOptions> = {},
): Promise<Client> {
  const client = new Client({ intents, rest: { api: sandbox.apiBaseUrl }, waitGuildTimeout: 200, ...options });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(sandbox.botToken);
  await ready;
  return client;
}
