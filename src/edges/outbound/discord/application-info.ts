import type { REST } from '@discordjs/rest';
import type { Clock } from '../../../shared/clock';
import { MINUTE } from '../../../shared/clock';

/** What Tierlink reads about its own Discord application (`GET /applications/@me`). */
export interface ApplicationInfo {
  /**
   * Whether anyone may add the bot to their server (Developer Portal → Bot → Public Bot,
   * `bot_public`). Read at most once every 5 minutes.
   */
  botPublic(): Promise<boolean>;
}

export function createApplicationInfo(deps: { rest: REST; clock: Clock }): ApplicationInfo {
  let cached: { at: number; botPublic: boolean } | null = null;
  return {
    async botPublic() {
      const now = deps.clock.now().getTime();
      if (cached && now - cached.at < 5 * MINUTE) return cached.botPublic;
      const app = (await deps.rest.get('/applications/@me')) as { bot_public?: unknown };
      cached = { at: now, botPublic: app.bot_public === true };
      return cached.botPublic;
    },
  };
}
