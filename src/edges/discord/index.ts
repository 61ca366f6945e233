import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../observability/metrics';
import { type CreateRestOptions, createRest } from './create-rest';
import { createApplicationInfo } from './application-info';
import { createGuildDirectory } from './guild-directory';
import { createGuildSnapshotCache } from './guild-snapshot-cache';
import { createMemberAdder } from './member-adder';
import { createRoleWriter } from './role-writer';

export { createRest } from './create-rest';
export type { CreateRestOptions, RestCallEvent, RestHandle, RestRateLimitEvent, RestStats } from './create-rest';
export { createGuildDirectory, MAX_MEMBER_PAGE } from './guild-directory';
export type { GuildDirectory, GuildDirectoryOptions, GuildInfo, GuildMemberInfo, GuildRole, ListMembersOptions } from './guild-directory';
export { createRoleWriter, truncateReason, MAX_AUDIT_REASON } from './role-writer';
export type { RoleWriteProblem, RoleWriteProblemCode, RoleWriter, RoleWriterOptions } from './role-writer';
export { DiscordErrorCode, DiscordProblemError, explainDiscordError } from './discord-problem';
export type { DiscordProblem, DiscordProblemCode } from './discord-problem';
export { createGuildSnapshotCache } from './guild-snapshot-cache';
export { createMemberAdder } from './member-adder';
export type { MemberAddProblem, MemberAddProblemCode, MemberAdded, MemberAdder } from './member-adder';
export { createDiscordUserOAuth } from './user-oauth';
export type { DiscordUser, DiscordUserOAuth, DiscordUserOAuthOptions, UserGuild, UserOAuthError, UserTokens } from './user-oauth';
export type { ApplicationInfo } from './application-info';
export type { GuildSnapshot, GuildSnapshotCache } from './guild-snapshot-cache';

export interface DiscordAccessOptions {
  /** DISCORD_API_BASE_URL. */
  apiBaseUrl: string;
  token: string;
  clock: Clock;
  logger?: Logger;
  metrics?: Pick<Metrics, 'discordRateLimited'>;
  /** Other @discordjs/rest options (tests and benchmarks raise `globalRequestsPerSecond`). */
  rest?: CreateRestOptions['rest'];
  /** The bot's user id when known (saves one `GET /users/@me`). */
  botUserId?: string;
  /** How long a guild's roles and the bot's member are trusted; 60 s when absent. */
  snapshotTtlMs?: number;
}

/**
 * Discord as Tierlink reaches it over HTTP: one REST client (and so one rate-limit state) shared
 * by the member directory, the short-lived cache of each guild's roles, and the role writer.
 */
export function createDiscordAccess(options: DiscordAccessOptions) {
  const { clock, logger, metrics } = options;
  const rest = createRest({
    apiBaseUrl: options.apiBaseUrl,
    token: options.token,
    ...(logger ? { logger } : {}),
    ...(options.rest ? { rest: options.rest } : {}),
    ...(metrics
      ? { onRateLimited: (event) => metrics.discordRateLimited.inc({ scope: event.global ? 'global' : event.scope || 'route' }) }
      : {}),
  });
  const directory = createGuildDirectory({ rest: rest.rest, ...(options.botUserId ? { botUserId: options.botUserId } : {}) });
  const snapshots = createGuildSnapshotCache({
    directory,
    clock,
    ...(options.snapshotTtlMs !== undefined ? { ttlMs: options.snapshotTtlMs } : {}),
  });
  const writer = createRoleWriter({ rest: rest.rest, directory, clock, cache: snapshots, ...(logger ? { logger } : {}) });
  const members = createMemberAdder({ rest: rest.rest, cache: snapshots, ...(logger ? { logger } : {}) });
  const application = createApplicationInfo({ rest: rest.rest, clock });
  return { rest, directory, snapshots, writer, members, application };
}

export type DiscordAccess = ReturnType<typeof createDiscordAccess>;
