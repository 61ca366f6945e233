import type { REST } from '@discordjs/rest';
import { type RESTGetAPICurrentUserGuildsResult, Routes } from 'discord.js';

/** `GET /users/@me/guilds` answers at most 200 guilds a page. */
const PAGE = 200;

/**
 * Runs a request again when it failed without any answer (no HTTP status) after @discordjs/rest's
 * own attempts (connections lost before an answer: src/edges/outbound/discord/connection-resets.ts):
 * the start-up reads below wait out a short network fault rather than stop the service.
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
