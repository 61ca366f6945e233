import type { REST } from '@discordjs/rest';
import {
  Client,
  Events,
  GatewayIntentBits,
  Options,
  type Guild,
  type GuildMember,
  type Interaction,
  type PartialGuildMember,
  type Role,
} from 'discord.js';
import type { GatewaySessionFeed } from '../discord/member-roles';
import type { Logger } from '../../shared/logger';

export interface DiscordBotDeps {
  token: string;
  /** The REST instance our role port uses: one rate-limit state for the whole bot. */
  rest: REST;
  logger: Logger;
  onInteraction(interaction: Interaction): Promise<void>;
  /** A member joined a guild (rejoin restore). */
  onMemberAdd(guildId: string, userId: string): Promise<void>;
  /** The bot is in a guild (at start, or when invited). */
  onGuildAvailable(guildId: string, name: string): Promise<void>;
  /** A guild's roles or the bot's own roles changed: cached role snapshots are stale. */
  onRolesChanged(guildId: string): void;
  /** A role was deleted: mappings and settings that name it go. */
  onRoleDeleted(guildId: string, roleId: string): Promise<void>;
  /** Shorter in tests: how long to wait for guilds listed in READY. */
  waitGuildTimeoutMs?: number;
  /** The member-role cache's feed for this session (src/edges/discord/member-roles.ts). */
  memberFeed?: GatewaySessionFeed;
}

export interface DiscordBot {
  start(): Promise<void>;
  stop(): Promise<void>;
  isReady(): boolean;
  guildIds(): string[];
}

/**
 * The discord.js gateway client: slash commands arrive here, and member joins (rejoin restore)
 * and role changes (cache invalidation). Intents: Guilds and the privileged GuildMembers, needed
 * for `guildMemberAdd` and to list members (docs/tech-facts.md §1).
 */
export function createDiscordBot(deps: DiscordBotDeps): DiscordBot {
  const { logger } = deps;
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
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
  });
  // Share the REST client (and so its rate-limit buckets) with the role port.
  client.rest = deps.rest;

  const background = (what: string, task: Promise<void>) => {
    task.catch((error) => logger.error({ err: error }, `${what} failed`));
  };

  client.on(Events.InteractionCreate, (interaction) => background('interaction', deps.onInteraction(interaction)));
  client.on(Events.GuildMemberAdd, (member: GuildMember) => {
    if (member.user.bot) return;
    background('rejoin restore', deps.onMemberAdd(member.guild.id, member.id));
  });
  client.on(Events.GuildCreate, (guild: Guild) => background('guild available', deps.onGuildAvailable(guild.id, guild.name)));
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
  client.on(Events.ShardDisconnect, (event, shard) => logger.warn({ code: event.code, shard }, 'gateway disconnected'));

  return {
    async start() {
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await client.login(deps.token);
      await ready;
      logger.info({ guilds: client.guilds.cache.size, user: client.user?.tag }, 'discord gateway ready');
      for (const guild of client.guilds.cache.values()) background('guild available', deps.onGuildAvailable(guild.id, guild.name));
    },
    async stop() {
      deps.memberFeed?.lost();
      await client.destroy();
    },
    isReady: () => client.isReady(),
    guildIds: () => [...client.guilds.cache.keys()],
  };
}
