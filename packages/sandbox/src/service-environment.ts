import type { DiscordSandbox } from './discord';
import type { MembershipServiceSandbox } from './membership-service';

/**
 * The environment that points Tierlink at both stand-ins: what the demo, the end-to-end tests and
 * the benchmarks give `parseConfig` (or a child process). Callers add DATA_DIR, DATABASE_URL and
 * the rest; `guildId` registers the slash commands on that server. The application's OAuth2 secret
 * and where the authorize page lives (`{DISCORD_WEB_BASE_URL}/oauth2/authorize`) are in it: every
 * page signs people in with Discord. Register the service's redirect URIs with
 * `discord.setOAuth2Application` or `registerRedirectUri`.
 */
export function standInEnvironment(patreon: MembershipServiceSandbox, discord: DiscordSandbox, guildId?: string): Record<string, string> {
  return {
    DISCORD_TOKEN: discord.botToken,
    DISCORD_APPLICATION_ID: discord.applicationId,
    ...(guildId ? { DISCORD_GUILD_ID: guildId } : {}),
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    DISCORD_CLIENT_SECRET: discord.clientSecret,
    DISCORD_WEB_BASE_URL: discord.webBaseUrl,
    PATREON_BASE_URL: patreon.url,
    PATREON_CLIENT_ID: patreon.clientId,
    PATREON_CLIENT_SECRET: patreon.clientSecret,
    PORT: '0',
  };
}

/**
 * DISCORD_PUBLIC_KEY, for a service that accepts HTTP interactions; the stand-in sends them there only
 * once `discord.setInteractionsEndpoint(url)` has accepted the service's `POST /interactions`.
 */
export function discordInteractionsEnvironment(discord: DiscordSandbox): Record<string, string> {
  return { DISCORD_PUBLIC_KEY: discord.publicKey };
}
