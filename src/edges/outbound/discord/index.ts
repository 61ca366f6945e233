import { performance } from 'node:perf_hooks';
import type { Clock } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { Metrics } from '../observability/metrics';
import { type CreateRestOptions, createRest } from './create-rest';
import { createApplicationInfo } from './application-info';
import { createGuildDirectory } from './guild-directory';
import { createGuildSnapshotCache } from './guild-snapshot-cache';
import { createMemberRoleCache, listingThroughCache } from './member-roles';
import { type BudgetStore, createMemoryBudgetStore, globalBudgetOf } from './request-budget';
import { createRequestScheduler } from './request-scheduler';
import { createMemberAdder } from './member-adder';
import { createRoleWriter } from './role-writer';
import { createChannelMessages } from './channel-messages';
import { createDirectMessages } from './direct-messages';
import type { ApplicationInfo } from './application-info';
import type { ChannelMessages } from './channel-messages';
import type { DirectMessages } from './direct-messages';
import type { GuildDirectory } from './guild-directory';
import type { GuildSnapshotCache } from './guild-snapshot-cache';
import type { MemberAdder } from './member-adder';
import type { MemberRoleCache } from './member-roles';
import type { RequestScheduler } from './request-scheduler';
import type { RestHandle } from './create-rest';
import type { RoleWriter } from './role-writer';

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
export { createChannelMessages } from './channel-messages';
export { createDirectMessages } from './direct-messages';
export type { DirectMessages } from './direct-messages';
export type { ChannelMessages, GuildChannel, OutgoingMessage, PostFailure, PostedMessage } from './channel-messages';
export { createMemberRoleCache, listingThroughCache } from './member-roles';
export type { GatewaySessionFeed, MemberRoleCache, MemberRoles, MemberRoleStats } from './member-roles';
export { createMemoryBudgetStore, budgetKeyOf } from './request-budget';
export type { BudgetStore, Lane } from './request-budget';

export interface DiscordAccessOptions {
  /** DISCORD_API_BASE_URL. */
  apiBaseUrl: string;
  token: string;
  clock: Clock;
  logger?: Logger;
  metrics?: Pick<Metrics, 'discordRateLimited' | 'discordPacedWaits' | 'discordMemberLookups'>;
  /**
   * Other @discordjs/rest options (tests and benchmarks raise `globalRequestsPerSecond`, which is
   * also the global limit the request budget keeps; 50 when absent).
   */
  rest?: CreateRestOptions['rest'];
  /** Where the request budget lives: PostgreSQL when several instances share the bot; this process's memory when absent. */
  budget?: BudgetStore;
  /** A monotonic clock in ms for the request budget (`performance.now` when absent). */
  monotonicNow?: () => number;
  /** The bot's user id when known (saves one `GET /users/@me`). */
  botUserId?: string;
  /** How long a guild's roles and the bot's member are trusted; 60 s when absent. */
  snapshotTtlMs?: number;
}

export function createDiscordAccess(options: DiscordAccessOptions): DiscordAccess {
  const { clock, logger, metrics } = options;
  const store = options.budget ?? createMemoryBudgetStore(options.monotonicNow ?? (() => performance.now()));
  const scheduler = createRequestScheduler({
    store,
    global: globalBudgetOf(options.rest?.globalRequestsPerSecond ?? 50, store.shared),
    ...(options.monotonicNow ? { now: options.monotonicNow } : {}),
    ...(logger ? { logger } : {}),
    ...(metrics ? { onWait: (lane) => metrics.discordPacedWaits.inc({ lane }) } : {}),
  });
  const rest = createRest({
    apiBaseUrl: options.apiBaseUrl,
    token: options.token,
    scheduler,
    ...(logger ? { logger } : {}),
    ...(options.rest ? { rest: options.rest } : {}),
    ...(metrics
      ? { onRateLimited: (event) => metrics.discordRateLimited.inc({ scope: event.global ? 'global' : event.scope || 'route' }) }
      : {}),
  });
  const reader = createGuildDirectory({ rest: rest.rest, ...(options.botUserId ? { botUserId: options.botUserId } : {}) });
  const memberRoles = createMemberRoleCache({
    directory: reader,
    ...(metrics ? { onLookup: (result) => metrics.discordMemberLookups.inc({ result }) } : {}),
  });
  const directory = listingThroughCache(reader, memberRoles);
  const snapshots = createGuildSnapshotCache({
    directory,
    clock,
    ...(options.snapshotTtlMs !== undefined ? { ttlMs: options.snapshotTtlMs } : {}),
  });
  const writer = createRoleWriter({
    rest: rest.rest,
    directory,
    clock,
    cache: snapshots,
    scheduler,
    memberRoles,
    ...(logger ? { logger } : {}),
  });
  const members = createMemberAdder({ rest: rest.rest, cache: snapshots, directory, ...(logger ? { logger } : {}) });
  // The mod-log and the announcements (src/app/channels) post through the same client.
  const channels = createChannelMessages({ rest: rest.rest });
  // Direct messages to patrons (src/app/membership/patron-messages.ts), in the bulk lane.
  const directMessages = createDirectMessages({ rest: rest.rest, scheduler });
  const application = createApplicationInfo({ rest: rest.rest, clock });
  return { rest, directory, snapshots, memberRoles, scheduler, writer, members, channels, directMessages, application };
}

/**
 * Discord as Tierlink reaches it over HTTP: one REST client (and so one rate-limit state) shared
 * by the member directory, the short-lived cache of each guild's roles, the cache of each member's
 * roles (kept by the gateway: `memberRoles.session()` feeds it), and the role writer; every
 * request paced by one request budget (src/edges/outbound/discord/request-scheduler.ts).
 */
export interface DiscordAccess {
  rest: RestHandle;
  directory: GuildDirectory;
  snapshots: GuildSnapshotCache;
  memberRoles: MemberRoleCache;
  scheduler: RequestScheduler;
  writer: RoleWriter & { invalidate(guildId?: string): void };
  members: MemberAdder;
  channels: ChannelMessages;
  directMessages: DirectMessages;
  application: ApplicationInfo;
}
