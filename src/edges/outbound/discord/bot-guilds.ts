import type { REST } from '@discordjs/rest';
import { type RESTGetAPICurrentUserGuildsResult, Routes } from 'discord.js';

/** `GET /users/@me/guilds` answers at most 200 guilds a page. */
const PAGE = 200;

/**
 * Runs a request again when the connection failed before any answer (no HTTP status): a kept-alive
 * socket the other end closed a moment ago resets the first request after a quiet spell, and
 * @discordjs/rest retries only 5xx answers and timeouts.
 */
export async function retryingResets<T>(request: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (attempt >= attempts || (error as { status?: unknown }).status !== undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * Every guild the bot is in, read over REST page by page (`after` the last id), not from a gateway
 * cache: with several instances each one's gateway sees only the guilds of its own shards, and
 * start-up binds campaigns before any gateway session opens.
 */
export async function listBotGuilds(rest: REST): Promise<Array<{ id: string; name: string }>> {
  const guilds: Array<{ id: string; name: string }> = [];
  let after: string | null = null;
  for (;;) {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (after) query.set('after', after);
    const page = (await retryingResets(() => rest.get(Routes.userGuilds(), { query }))) as RESTGetAPICurrentUserGuildsResult;
    for (const guild of page) guilds.push({ id: guild.id, name: guild.name });
    if (page.length < PAGE) return guilds;
    after = page.at(-1)!.id;
  }
}
