import type { DiscordSandbox } from './discord';
import type { MembershipServiceSandbox } from './membership-service';

/**
 * The environment that points Tierlink at both stand-ins: what the demo, the end-to-end tests and
 * the benchmarks give `parseConfig` (or a child process). Callers add DATA_DIR, DATABASE_URL and
 * the rest; `guildId` registers the slash commands on that server.
 */
export function standInEnvironment(patreon: MembershipServiceSandbox, discord: DiscordSandbox, guildId?: string): Record<string, string> {
  return {
    DISCORD_TOKEN: discord.botToken,
    DISCORD_APPLICATION_ID: discord.applicationId,
    ...(guildId ? { DISCORD_GUILD_ID: guildId } : {}),
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    PATREON_BASE_URL: patreon.url,
    PATREON_CLIENT_ID: patreon.clientId,
    PATREON_CLIENT_SECRET: patreon.clientSecret,
    PORT: '0',
  };
}
