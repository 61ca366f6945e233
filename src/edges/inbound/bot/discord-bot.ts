import { REST } from '@discordjs/rest';
import {
  Client,
  type ClientOptions,
  Events,
  GatewayIntentBits,
  Options,
  Partials,
  type Guild,
  type GuildMember,
  type Interaction,
  type PartialGuildMember,
  type Role,
  Status,
} from 'discord.js';
import type { GatewaySessionFeed } from '../../outbound/discord/member-roles';
import type { Logger } from '../../../shared/logger';

/**
 * A REST of a client's own that starts no timers. discord.js builds one in every client's
 * constructor, and @discordjs/rest gives each two unref'd sweep intervals (hourly and four-hourly)
 * that only `client.destroy()` clears. Tierlink hands every client the shared REST at once, so the
 * one built first would be orphaned with its intervals running for as long as the process runs.
 */
const OWN_REST_WITHOUT_SWEEPERS = { hashSweepInterval: 0, handlerSweepInterval: 0 } as const;

/**
 * A discord.js client whose requests go through the shared REST (and so its rate-limit buckets),
 * the REST it would have built for itself never started: the one way every client is made.
 */
export function clientOnSharedRest(options: Omit<ClientOptions, 'rest'>, rest: REST): Client {
  const client = new Client({ ...options, rest: OWN_REST_WITHOUT_SWEEPERS });
  client.rest = rest;
  return client;
}

/**
 * `client.destroy()` also empties the token of the client's REST and stops its sweepers: with the
 * REST shared by every client and the role writer, closing one shard would leave the others (and
 * every role request) without a token. The client is handed a REST of its own before it goes.
 */
export async function destroyKeepingSharedRest(client: Client): Promise<void> {
  client.rest = new REST(OWN_REST_WITHOUT_SWEEPERS);
  await client.destroy();
}

/**
 * The mentions every message of the bot's clients may ping by default: none. Replies quote text
 * Tierlink does not control (a tier's title from Patreon, a member's name), and `@everyone` or a
 * role mention in it must not ping the server (docs/discord-api-notes.md §9).
 */
export const NO_MENTIONS = { parse: [] as never[], repliedUser: false };

/** discord.js's IDENTIFY throttler (`ws.buildIdentifyThrottler`): resolves when the shard may identify. */
export interface IdentifyThrottler {
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void>;
}

export interface ShardClientDeps {
  token: string;
  /** This client's shard, of `shardCount` (docs/discord-api-notes.md §4). */
  shardId: number;
  shardCount: number;
  /** Paces IDENTIFY across every instance (src/edges/inbound/bot/identify-gate.ts). */
  identifyThrottler: IdentifyThrottler;
  /** The REST instance our role port uses: one rate-limit state for the whole bot. */
  rest: REST;
  logger: Logger;
  onInteraction(interaction: Interaction): Promise<void>;
  /** A member joined a guild (rejoin restore). */
  onMemberAdd(guildId: string, userId: string): Promise<void>;
  /** A member left a guild, or was kicked or banned (the Members page's presence). */
  onMemberRemove(guildId: string, userId: string): Promise<void>;
  /** The bot is in a guild (at start, when invited, when the guild changes): its name and language (`preferred_locale`). */
  onGuildAvailable(guildId: string, name: string, locale: string | null): Promise<void>;
  /** A guild's roles or the bot's own roles changed: cached role snapshots are stale. */
  onRolesChanged(guildId: string): void;
  /** A role was deleted: mappings and settings that name it go. */
  onRoleDeleted(guildId: string, roleId: string): Promise<void>;
  /** The session closed for good (a close code Discord says not to reconnect after: 4004, 4010–4014). */
  onFatalClose(code: number): void;
  /** Shorter in tests: how long to wait for guilds listed in READY. */
  waitGuildTimeoutMs?: number;
  /** The member-role cache's feed for this session (src/edges/outbound/discord/member-roles.ts). */
  memberFeed?: GatewaySessionFeed;
}

/** One gateway session: a discord.js client that holds exactly one shard. */
export interface ShardClient {
  readonly shardId: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Connected now: logged in and the shard's session is ready (not reconnecting). */
  isReady(): boolean;
  guildIds(): string[];
  /** The discord.js client, to build interactions that arrived over HTTP with its guild cache. */
  readonly client: Client;
}

/**
 * A discord.js gateway client for one shard (`shards: [id]`, `shardCount`): slash commands arrive
 * here when Discord delivers them over the gateway, and member joins (rejoin restore), leaves (the
 * Members page) and role changes (cache invalidation) of the guilds on that shard. One client per shard, not one client
 * with a list of shards, so that taking or giving up a shard never disturbs the others
 * (docs/decisions.md §17). Intents: Guilds and the privileged GuildMembers, needed for
 * `guildMemberAdd`, `guildMemberRemove` and to list members (docs/tech-facts.md §1).
 */
export function createShardClient(deps: ShardClientDeps): ShardClient {
  const { logger, shardId } = deps;
  const client = clientOnSharedRest(
    {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      // Members are not cached (below): without partial members, discord.js drops GUILD_MEMBER_REMOVE
      // for a member it does not hold, which is every member but the bot.
      partials: [Partials.GuildMember],
      shards: [shardId],
      shardCount: deps.shardCount,
      ws: { buildIdentifyThrottler: () => deps.identifyThrottler },
      // Every reply may echo text from outside (tier titles, names): it pings nobody unless a reply says so.
      allowedMentions: NO_MENTIONS,
      waitGuildTimeout: deps.waitGuildTimeoutMs ?? 15_000,
      // Every role change Tierlink makes comes back as a member update that discord.js would cache:
      // after a large sync that is thousands of members nobody reads (roles are read over REST).
      // Keep only the bot's own member and user; roles and guilds stay fully cached.
      makeCache: Options.cacheWithLimits({
        ...Options.DefaultMakeCacheSettings,
        GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user.id },
        UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user.id },
        PresenceManager: 0,
        VoiceStateManager: 0,
      }),
    },
    deps.rest,
  );

  const background = (what: string, task: Promise<void>) => {
    task.catch((error) => logger.error({ err: error }, `${what} failed`));
  };

  client.on(Events.InteractionCreate, (interaction) => background('interaction', deps.onInteraction(interaction)));
  client.on(Events.GuildMemberAdd, (member: GuildMember) => {
    if (member.user.bot) return;
    logger.debug({ guildId: member.guild.id, shard: shardId }, 'member joined');
    background('rejoin restore', deps.onMemberAdd(member.guild.id, member.id));
  });
  // A leave, a kick or a ban: Discord sends `{guild_id, user}` only, so the member is partial.
  client.on(Events.GuildMemberRemove, (member: GuildMember | PartialGuildMember) => {
    if (member.user.bot) return;
    logger.debug({ guildId: member.guild.id, shard: shardId }, 'member left');
    background('member left', deps.onMemberRemove(member.guild.id, member.id));
  });
  client.on(Events.GuildCreate, (guild: Guild) =>
    background('guild available', deps.onGuildAvailable(guild.id, guild.name, guild.preferredLocale)),
  );
  // A server's name or language changed (its Community settings).
  client.on(Events.GuildUpdate, (_old: Guild, guild: Guild) =>
    background('guild changed', deps.onGuildAvailable(guild.id, guild.name, guild.preferredLocale)),
  );
  const rolesChanged = (role: Role) => deps.onRolesChanged(role.guild.id);
  client.on(Events.GuildRoleCreate, rolesChanged);
  client.on(Events.GuildRoleUpdate, rolesChanged);
  client.on(Events.GuildRoleDelete, (role: Role) => {
    rolesChanged(role);
    background('role deleted', deps.onRoleDeleted(role.guild.id, role.id));
  });
  client.on(Events.GuildMemberUpdate, (_old: GuildMember | PartialGuildMember, member: GuildMember) => {
    if (member.id === client.user?.id) deps.onRolesChanged(member.guild.id);
  });
  // The member-role cache learns from the raw dispatches; a dropped session stops trusting it.
  const feed = deps.memberFeed;
  if (feed) {
    client.on(Events.Raw, (packet: unknown) => feed.dispatch(packet));
    client.on(Events.ShardReconnecting, () => feed.lost());
    client.on(Events.ShardDisconnect, () => feed.lost());
  }
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  let stopped = false;
  client.on(Events.ShardDisconnect, (event) => {
    logger.warn({ code: event.code, shard: shardId }, 'gateway disconnected');
    if (!stopped) deps.onFatalClose(event.code);
  });

  return {
    shardId,
    client,
    async start() {
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await client.login(deps.token);
      await ready;
      logger.info(
        { shard: shardId, shardCount: deps.shardCount, guilds: client.guilds.cache.size, user: client.user?.tag },
        'discord gateway ready',
      );
      for (const guild of client.guilds.cache.values())
        background('guild available', deps.onGuildAvailable(guild.id, guild.name, guild.preferredLocale));
    },
    async stop() {
      stopped = true;
      deps.memberFeed?.lost();
      await destroyKeepingSharedRest(client);
    },
    // The client stays "ready" while discord.js reconnects a dropped session: the shard's own status says whether it is connected.
    isReady: () => client.isReady() && client.ws.shards.get(shardId)?.status === Status.Ready,
    guildIds: () => [...client.guilds.cache.keys()],
  };
}
