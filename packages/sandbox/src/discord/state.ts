import type { Clock } from '../support/clock';
import type { PermissionOverwrite } from './permissions';
import { Permission, applyOverwrites, basePermissions, compareRolePositions, hasPermission, highestRole } from './permissions';
import type { SnowflakeFactory } from './snowflakes';
import { compareIds } from './snowflakes';
import type { ChannelSnapshot, GuildSnapshot, MemberSnapshot, RoleChangeVia, RoleEvent, RoleSnapshot } from './types';

export interface UserRecord {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
  /** Nitro raises how many servers the user may be in from 100 to 200 (Add Guild Member's 30001). */
  nitro: boolean;
  /** The language of the user's client, as `GET /users/@me` reports it (`locale`); `en-US` by default. */
  locale: string;
}

/** How many servers a user may be in: 100, or 200 with Nitro (docs/discord-api-notes.md §2). */
export const USER_GUILD_LIMIT = { standard: 100, nitro: 200 } as const;

export interface RoleRecord {
  id: string;
  name: string;
  color: number;
  hoist: boolean;
  position: number;
  permissions: bigint;
  managed: boolean;
  mentionable: boolean;
  botId?: string;
}

export interface MemberRecord {
  userId: string;
  roleIds: string[];
  joinedAt: Date;
  nick: string | null;
  /**
   * Not yet through the server's Membership Screening (its rules): Discord adds joiners of a
   * server with screening on as `pending` and sends GUILD_MEMBER_UPDATE with `pending: false` when
   * they accept (docs/discord-api-notes.md §2). A role given to a pending member lets them skip the
   * screening, as Discord does: the stand-in clears `pending` then, so a test can see it happen.
   */
  pending: boolean;
}

/** Channel types the stand-in has (Discord's docs, Channel resource; docs/discord-api-notes.md §9): text, voice, category, announcement. */
export const ChannelType = { GuildText: 0, GuildVoice: 2, GuildCategory: 4, GuildAnnouncement: 5 } as const;
export type ChannelTypeValue = (typeof ChannelType)[keyof typeof ChannelType];

export interface ChannelRecord {
  id: string;
  guildId: string;
  name: string;
  type: ChannelTypeValue;
  position: number;
  parentId: string | null;
  topic: string | null;
  overwrites: PermissionOverwrite[];
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  botRoleId: string;
  /** The `#general` text channel every guild starts with. */
  channelId: string;
  channels: Map<string, ChannelRecord>;
  roles: Map<string, RoleRecord>;
  members: Map<string, MemberRecord>;
  /** Member ids in ascending numeric order, rebuilt lazily after joins and leaves. */
  sortedIds: string[] | null;
  /** Banned users and the ban's reason. */
  bans: Map<string, { reason: string | null }>;
  /** The member cap Add Guild Member enforces (30019); the guild object's `max_members`. */
  maxMembers: number;
  /** The server's language (`preferred_locale`, Community settings); `en-US` by default, as Discord's. */
  preferredLocale: string;
  /** Membership Screening on (the guild's features list `MEMBER_VERIFICATION_GATE_ENABLED`): joiners are `pending`. */
  screening: boolean;
}

/** Changes the gateway turns into dispatches and waiters watch. `silent` changes are not dispatched. */
export type StateEvent =
  | { type: 'guild-create' | 'guild-update'; guildId: string }
  | { type: 'role-create' | 'role-update' | 'role-delete'; guildId: string; role: RoleRecord }
  | { type: 'member-add' | 'member-update'; guildId: string; userId: string; silent?: boolean }
  | { type: 'member-remove'; guildId: string; user: UserRecord }
  | { type: 'ban-add' | 'ban-remove'; guildId: string; user: UserRecord }
  | { type: 'channel-create' | 'channel-update' | 'channel-delete'; guildId: string; channel: ChannelRecord };

export interface CreateGuildOptions {
  name?: string;
  ownerId?: string;
  /** Permissions of the bot's managed role; Manage Roles when absent. */
  botPermissions?: bigint;
  /** Position of the bot's role; 1 (just above @everyone) when absent. */
  botRolePosition?: number;
  /** Permissions of @everyone; none when absent (give the bot what a test relies on explicitly). */
  everyonePermissions?: bigint;
  /** The member cap (`max_members`); 500,000 when absent. */
  maxMembers?: number;
  /** The server's language (`preferred_locale`); `en-US` when absent. */
  preferredLocale?: string;
  /** Mints the guild's id so that its events go to this shard (`(id >> 22) % count === id`). */
  shard?: { id: number; count: number };
  /** Membership Screening (rules to accept before taking part): joiners are added `pending`. Off when absent. */
  screening?: boolean;
}

export interface CreatedGuild {
  guildId: string;
  everyoneRoleId: string;
  botRoleId: string;
  channelId: string;
}

export interface CreateRoleOptions {
  name: string;
  /** Where to insert: roles at or above it move up by one, as in Discord's role list. 1 when absent. */
  position?: number;
  managed?: boolean;
  permissions?: bigint;
  color?: number;
  hoist?: boolean;
  mentionable?: boolean;
}

export interface UpdateRoleOptions {
  name?: string;
  /** Moves the role; the roles it passes shift by one, as dragging it in Server Settings does. */
  position?: number;
  permissions?: bigint;
  managed?: boolean;
  color?: number;
}

/** An overwrite as tests write it. */
export interface OverwriteInput {
  /** A role id (the guild id for @everyone) or a user id. */
  id: string;
  type: 'role' | 'member';
  allow?: bigint;
  deny?: bigint;
}

export interface CreateChannelOptions {
  name: string;
  /** 0 text (default), 2 voice, 4 category, 5 announcement. */
  type?: ChannelTypeValue;
  parentId?: string;
  topic?: string;
  overwrites?: OverwriteInput[];
}

export interface UpdateChannelOptions {
  name?: string;
  topic?: string | null;
  /** Replaces every overwrite of the channel. */
  overwrites?: OverwriteInput[];
}

export interface AddMemberOptions {
  userId?: string;
  username?: string;
  globalName?: string | null;
  roleIds?: string[];
  joinedAt?: Date;
  bot?: boolean;
  /** The member's nickname in this guild. */
  nick?: string | null;
  /** The language of the user's client (`GET /users/@me` `locale`). */
  locale?: string;
  /** Not yet through the server's Membership Screening; the server's `screening` when absent. */
  pending?: boolean;
}

/** Thrown by control methods used wrongly (unknown guild in a test, …): a test bug, not a Discord answer. */
export class SandboxUsageError extends Error {
  override name = 'SandboxUsageError';
}

/**
 * The sandbox's world: users, guilds, roles, members and the log of member role changes. Every change
 * goes through here so the gateway and the waiters see it.
 */
export class DiscordState {
  readonly users = new Map<string, UserRecord>();
  readonly guilds = new Map<string, GuildRecord>();
  /** Which guild each channel belongs to. */
  private readonly channelGuilds = new Map<string, string>();
  readonly botUser: UserRecord;
  membersIntentEnabled: boolean;
  /** Developer Portal → Bot → Public Bot: anyone may add the bot to their server (on for a new application). */
  botPublic: boolean;
  private readonly events: RoleEvent[] = [];
  private readonly listeners = new Set<(event: StateEvent) => void>();
  private userCounter = 0;

  constructor(
    private readonly clock: Clock,
    readonly nextId: SnowflakeFactory,
    options: { botUserId: string; botUsername: string; membersIntentEnabled: boolean; botPublic?: boolean },
  ) {
    this.botUser = { id: options.botUserId, username: options.botUsername, globalName: null, bot: true, nitro: false, locale: 'en-US' };
    this.users.set(this.botUser.id, this.botUser);
    this.membersIntentEnabled = options.membersIntentEnabled;
    this.botPublic = options.botPublic ?? true;
  }

  subscribe(listener: (event: StateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private emit(event: StateEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  // ---- guilds -------------------------------------------------------------------------------

  /** A server's language changed in its settings: Discord sends GUILD_UPDATE. */
  setPreferredLocale(guildId: string, locale: string): void {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new Error(`no guild ${guildId}`);
    guild.preferredLocale = locale;
    this.emit({ type: 'guild-update', guildId });
  }

  createGuild(options: CreateGuildOptions = {}): CreatedGuild {
    const guildId = options.shard ? this.nextId.onShard(options.shard.id, options.shard.count) : this.nextId();
    const ownerId = options.ownerId ?? this.ensureUser({ username: 'owner' }).id;
    if (!this.users.has(ownerId)) this.ensureUser({ userId: ownerId, username: 'owner' });
    const botRoleId = this.nextId();
    const channelId = this.nextId();
    const guild: GuildRecord = {
      id: guildId,
      name: options.name ?? 'Sandbox Guild',
      ownerId,
      botRoleId,
      channelId,
      channels: new Map(),
      roles: new Map(),
      members: new Map(),
      sortedIds: null,
      bans: new Map(),
      maxMembers: options.maxMembers ?? 500_000,
      preferredLocale: options.preferredLocale ?? 'en-US',
      screening: options.screening ?? false,
    };
    guild.roles.set(guildId, {
      id: guildId,
      name: '@everyone',
      color: 0,
      hoist: false,
      position: 0,
      permissions: options.everyonePermissions ?? 0n,
      managed: false,
      mentionable: false,
    });
    guild.roles.set(botRoleId, {
      id: botRoleId,
      name: this.botUser.username,
      color: 0,
      hoist: false,
      position: options.botRolePosition ?? 1,
      permissions: options.botPermissions ?? Permission.ManageRoles,
      managed: true,
      mentionable: false,
      botId: this.botUser.id,
    });
    const now = this.clock.now();
    guild.members.set(ownerId, { userId: ownerId, roleIds: [], joinedAt: now, nick: null, pending: false });
    guild.members.set(this.botUser.id, { userId: this.botUser.id, roleIds: [botRoleId], joinedAt: now, nick: null, pending: false });
    guild.channels.set(channelId, {
      id: channelId,
      guildId,
      name: 'general',
      type: ChannelType.GuildText,
      position: 0,
      parentId: null,
      topic: null,
      overwrites: [],
    });
    this.channelGuilds.set(channelId, guildId);
    this.guilds.set(guildId, guild);
    this.emit({ type: 'guild-create', guildId });
    return { guildId, everyoneRoleId: guildId, botRoleId, channelId };
  }

  guild(guildId: string): GuildRecord | undefined {
    return this.guilds.get(guildId);
  }

  requireGuild(guildId: string): GuildRecord {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new SandboxUsageError(`no guild ${guildId} in the sandbox`);
    return guild;
  }

  // ---- roles --------------------------------------------------------------------------------

  createRole(guildId: string, options: CreateRoleOptions): RoleSnapshot {
    const guild = this.requireGuild(guildId);
    const position = Math.max(1, options.position ?? 1);
    const shifted = this.shiftRoles(guild, (role) => role.position >= position, +1);
    const role: RoleRecord = {
      id: this.nextId(),
      name: options.name,
      color: options.color ?? 0,
      hoist: options.hoist ?? false,
      position,
      permissions: options.permissions ?? 0n,
      managed: options.managed ?? false,
      mentionable: options.mentionable ?? false,
    };
    guild.roles.set(role.id, role);
    this.emit({ type: 'role-create', guildId, role });
    for (const other of shifted) this.emit({ type: 'role-update', guildId, role: other });
    return roleSnapshot(role);
  }

  updateRole(guildId: string, roleId: string, patch: UpdateRoleOptions): RoleSnapshot {
    const guild = this.requireGuild(guildId);
    const role = this.requireRole(guild, roleId);
    const changed = new Set<RoleRecord>();
    if (patch.position !== undefined && roleId !== guildId && patch.position !== role.position) {
      const from = role.position;
      const to = Math.max(1, patch.position);
      const moved =
        to > from
          ? this.shiftRoles(guild, (r) => r !== role && r.position > from && r.position <= to, -1)
          : this.shiftRoles(guild, (r) => r !== role && r.position >= to && r.position < from, +1);
      for (const other of moved) changed.add(other);
      role.position = to;
      changed.add(role);
    }
    if (patch.name !== undefined) role.name = patch.name;
    if (patch.permissions !== undefined) role.permissions = patch.permissions;
    if (patch.managed !== undefined) role.managed = patch.managed;
    if (patch.color !== undefined) role.color = patch.color;
    changed.add(role);
    for (const other of changed) this.emit({ type: 'role-update', guildId, role: other });
    return roleSnapshot(role);
  }

  deleteRole(guildId: string, roleId: string): void {
    const guild = this.requireGuild(guildId);
    const role = this.requireRole(guild, roleId);
    if (roleId === guildId) throw new SandboxUsageError('@everyone cannot be deleted');
    guild.roles.delete(roleId);
    this.emit({ type: 'role-delete', guildId, role });
    for (const member of guild.members.values()) {
      const index = member.roleIds.indexOf(roleId);
      if (index >= 0) {
        member.roleIds.splice(index, 1);
        // Discord sends GUILD_ROLE_DELETE only; clients drop the role from their members themselves.
        this.emit({ type: 'member-update', guildId, userId: member.userId, silent: true });
      }
    }
  }

  private requireRole(guild: GuildRecord, roleId: string): RoleRecord {
    const role = guild.roles.get(roleId);
    if (!role) throw new SandboxUsageError(`no role ${roleId} in guild ${guild.id}`);
    return role;
  }

  private shiftRoles(guild: GuildRecord, select: (role: RoleRecord) => boolean, by: number): RoleRecord[] {
    const shifted: RoleRecord[] = [];
    for (const role of guild.roles.values()) {
      if (role.id !== guild.id && select(role)) {
        role.position += by;
        shifted.push(role);
      }
    }
    return shifted;
  }

  // ---- channels -----------------------------------------------------------------------------

  /** The channel and its guild, or undefined for an id no guild has. */
  channel(channelId: string): { guild: GuildRecord; channel: ChannelRecord } | undefined {
    const guild = this.guilds.get(this.channelGuilds.get(channelId) ?? '');
    const channel = guild?.channels.get(channelId);
    return guild && channel ? { guild, channel } : undefined;
  }

  requireChannel(channelId: string): { guild: GuildRecord; channel: ChannelRecord } {
    const found = this.channel(channelId);
    if (!found) throw new SandboxUsageError(`no channel ${channelId} in the sandbox`);
    return found;
  }

  private overwrites(guild: GuildRecord, input: readonly OverwriteInput[]): PermissionOverwrite[] {
    return input.map((o) => {
      if (o.type === 'role' && !guild.roles.has(o.id)) throw new SandboxUsageError(`overwrite names no role ${o.id} of ${guild.id}`);
      if (o.type === 'member' && !this.users.has(o.id)) throw new SandboxUsageError(`overwrite names no user ${o.id}`);
      return { id: o.id, type: o.type === 'role' ? 0 : 1, allow: o.allow ?? 0n, deny: o.deny ?? 0n };
    });
  }

  createChannel(guildId: string, options: CreateChannelOptions): ChannelSnapshot {
    const guild = this.requireGuild(guildId);
    const type = options.type ?? ChannelType.GuildText;
    if (!Object.values(ChannelType).includes(type)) throw new SandboxUsageError(`channel type ${String(type)} is not one the sandbox has`);
    if (options.parentId !== undefined && guild.channels.get(options.parentId)?.type !== ChannelType.GuildCategory) {
      throw new SandboxUsageError(`parent ${options.parentId} is no category of ${guildId}`);
    }
    const channel: ChannelRecord = {
      id: this.nextId(),
      guildId,
      name: options.name,
      type,
      position: guild.channels.size,
      parentId: options.parentId ?? null,
      topic: options.topic ?? null,
      overwrites: this.overwrites(guild, options.overwrites ?? []),
    };
    guild.channels.set(channel.id, channel);
    this.channelGuilds.set(channel.id, guildId);
    this.emit({ type: 'channel-create', guildId, channel });
    return channelSnapshot(channel);
  }

  updateChannel(channelId: string, patch: UpdateChannelOptions): ChannelSnapshot {
    const { guild, channel } = this.requireChannel(channelId);
    if (patch.name !== undefined) channel.name = patch.name;
    if (patch.topic !== undefined) channel.topic = patch.topic;
    if (patch.overwrites !== undefined) channel.overwrites = this.overwrites(guild, patch.overwrites);
    this.emit({ type: 'channel-update', guildId: guild.id, channel });
    return channelSnapshot(channel);
  }

  deleteChannel(channelId: string): void {
    const { guild, channel } = this.requireChannel(channelId);
    if (channelId === guild.channelId) throw new SandboxUsageError('the sandbox keeps #general');
    guild.channels.delete(channelId);
    this.channelGuilds.delete(channelId);
    this.emit({ type: 'channel-delete', guildId: guild.id, channel });
  }

  /** A member's permissions in a channel, overwrites applied (what an interaction's `member.permissions` carries). */
  channelPermissions(guild: GuildRecord, channel: ChannelRecord, userId: string): bigint {
    const member = guild.members.get(userId);
    if (!member) return 0n;
    return applyOverwrites(this.memberPermissions(guild, userId), channel.overwrites, guild.id, member.roleIds, userId);
  }

  // ---- users and members --------------------------------------------------------------------

  /** How many servers a user is in (the limit Add Guild Member enforces with 30001). */
  guildCountOf(userId: string): number {
    let count = 0;
    for (const guild of this.guilds.values()) if (guild.members.has(userId)) count += 1;
    return count;
  }

  ensureUser(options: {
    userId?: string;
    username?: string;
    globalName?: string | null;
    bot?: boolean;
    nitro?: boolean;
    locale?: string;
  }): UserRecord {
    const existing = options.userId ? this.users.get(options.userId) : undefined;
    if (existing) return existing;
    this.userCounter += 1;
    const user: UserRecord = {
      id: options.userId ?? this.nextId(),
      username: options.username ?? `user${this.userCounter}`,
      globalName: options.globalName ?? null,
      bot: options.bot ?? false,
      nitro: options.nitro ?? false,
      locale: options.locale ?? 'en-US',
    };
    this.users.set(user.id, user);
    return user;
  }

  addMember(guildId: string, options: AddMemberOptions = {}, silent = false): MemberSnapshot {
    const guild = this.requireGuild(guildId);
    const user = this.ensureUser(options);
    if (guild.members.has(user.id)) throw new SandboxUsageError(`user ${user.id} is already a member of ${guildId}`);
    const roleIds = [...new Set(options.roleIds ?? [])];
    for (const roleId of roleIds) {
      if (roleId === guildId) throw new SandboxUsageError('@everyone is implicit and never listed in a member');
      this.requireRole(guild, roleId);
    }
    const member: MemberRecord = {
      userId: user.id,
      roleIds,
      joinedAt: options.joinedAt ?? this.clock.now(),
      nick: options.nick ?? null,
      pending: options.pending ?? (guild.screening && roleIds.length === 0),
    };
    guild.members.set(user.id, member);
    guild.sortedIds = null;
    if (!silent) this.emit({ type: 'member-add', guildId, userId: user.id });
    return memberSnapshot(member, user);
  }

  removeMember(guildId: string, userId: string): void {
    const guild = this.requireGuild(guildId);
    if (!guild.members.delete(userId)) throw new SandboxUsageError(`user ${userId} is not a member of ${guildId}`);
    guild.sortedIds = null;
    const user = this.users.get(userId) ?? { id: userId, username: 'unknown', globalName: null, bot: false, nitro: false, locale: 'en-US' };
    this.emit({ type: 'member-remove', guildId, user });
  }

  /**
   * A user who joins through Add Guild Member, with the roles of that call, logged with `via: 'join'`;
   * GUILD_MEMBER_ADD carries them.
   */
  joinMember(guildId: string, userId: string, roleIds: readonly string[], nick: string | null, reason: string | null): MemberRecord {
    const guild = this.requireGuild(guildId);
    if (guild.members.has(userId)) throw new SandboxUsageError(`user ${userId} is already a member of ${guildId}`);
    const unique = [...new Set(roleIds)];
    // Added with roles, a joiner skips the screening (what a bot's join roles do to it in Discord).
    const member: MemberRecord = {
      userId,
      roleIds: unique,
      joinedAt: this.clock.now(),
      nick,
      pending: guild.screening && unique.length === 0,
    };
    guild.members.set(userId, member);
    guild.sortedIds = null;
    for (const roleId of member.roleIds) this.record(guildId, userId, roleId, 'add', 'join', reason);
    this.emit({ type: 'member-add', guildId, userId });
    return member;
  }

  /** The member accepted the server's rules: no longer `pending`, announced by GUILD_MEMBER_UPDATE. */
  completeScreening(guildId: string, userId: string): void {
    const member = this.requireMember(guildId, userId);
    if (!member.pending) throw new SandboxUsageError(`user ${userId} is not pending in ${guildId}`);
    member.pending = false;
    this.emit({ type: 'member-update', guildId, userId });
  }

  /** Turns Membership Screening on or off for later joiners (members already in stay as they are). */
  setScreening(guildId: string, on: boolean): void {
    this.requireGuild(guildId).screening = on;
    this.emit({ type: 'guild-update', guildId });
  }

  /** The owner hands the server to another member (Server Settings → Members → Transfer Ownership); GUILD_UPDATE. */
  transferOwnership(guildId: string, userId: string): void {
    this.requireMember(guildId, userId);
    if (userId === this.botUser.id) throw new SandboxUsageError('a bot cannot own a server here');
    this.requireGuild(guildId).ownerId = userId;
    this.emit({ type: 'guild-update', guildId });
  }

  /** GUILD_MEMBER_ADD for someone already in the guild ("may also be sent for users who are already members"). */
  announceMember(guildId: string, userId: string): void {
    this.requireMember(guildId, userId);
    this.emit({ type: 'member-add', guildId, userId });
  }

  /** Bans a user (member or not), removing them from the guild as a ban does. */
  ban(guildId: string, userId: string, reason: string | null): void {
    const guild = this.requireGuild(guildId);
    const user = this.users.get(userId);
    if (!user) throw new SandboxUsageError(`no user ${userId}`);
    if (userId === guild.ownerId || userId === this.botUser.id) throw new SandboxUsageError('the owner and the bot cannot be banned');
    if (guild.members.has(userId)) this.removeMember(guildId, userId);
    guild.bans.set(userId, { reason });
    this.emit({ type: 'ban-add', guildId, user });
  }

  unban(guildId: string, userId: string): void {
    const guild = this.requireGuild(guildId);
    if (!guild.bans.delete(userId)) throw new SandboxUsageError(`user ${userId} is not banned from ${guildId}`);
    const user = this.users.get(userId);
    if (user) this.emit({ type: 'ban-remove', guildId, user });
  }

  requireMember(guildId: string, userId: string): MemberRecord {
    const member = this.requireGuild(guildId).members.get(userId);
    if (!member) throw new SandboxUsageError(`user ${userId} is not a member of ${guildId}`);
    return member;
  }

  /** Member ids in ascending order, as `GET /guilds/{g}/members` pages them. */
  sortedMemberIds(guild: GuildRecord): string[] {
    if (!guild.sortedIds) guild.sortedIds = [...guild.members.keys()].sort(compareIds);
    return guild.sortedIds;
  }

  /** Adds one role; false when the member already had it (Discord answers 204 and logs nothing). */
  addMemberRole(guildId: string, userId: string, roleId: string, via: RoleChangeVia, reason: string | null): boolean {
    const member = this.requireMember(guildId, userId);
    if (member.roleIds.includes(roleId)) return false;
    member.roleIds.push(roleId);
    member.pending = false;
    this.record(guildId, userId, roleId, 'add', via, reason);
    this.emit({ type: 'member-update', guildId, userId });
    return true;
  }

  removeMemberRole(guildId: string, userId: string, roleId: string, via: RoleChangeVia, reason: string | null): boolean {
    const member = this.requireMember(guildId, userId);
    const index = member.roleIds.indexOf(roleId);
    if (index < 0) return false;
    member.roleIds.splice(index, 1);
    this.record(guildId, userId, roleId, 'remove', via, reason);
    this.emit({ type: 'member-update', guildId, userId });
    return true;
  }

  /** Replaces a member's whole role list, logging one event per role added or removed. */
  setMemberRoles(guildId: string, userId: string, roleIds: readonly string[], via: RoleChangeVia, reason: string | null): void {
    const guild = this.requireGuild(guildId);
    const member = this.requireMember(guildId, userId);
    const next = [...new Set(roleIds)];
    for (const roleId of next) this.requireRole(guild, roleId);
    const before = new Set(member.roleIds);
    const after = new Set(next);
    const removed = member.roleIds.filter((id) => !after.has(id));
    const added = next.filter((id) => !before.has(id));
    if (removed.length === 0 && added.length === 0) return;
    member.roleIds = next;
    if (added.length > 0) member.pending = false;
    for (const roleId of removed) this.record(guildId, userId, roleId, 'remove', via, reason);
    for (const roleId of added) this.record(guildId, userId, roleId, 'add', via, reason);
    this.emit({ type: 'member-update', guildId, userId });
  }

  private record(guildId: string, userId: string, roleId: string, op: 'add' | 'remove', via: RoleChangeVia, reason: string | null): void {
    this.events.push({ at: this.clock.now(), guildId, userId, roleId, op, via, reason });
  }

  roleEvents(): RoleEvent[] {
    return this.events.map((event) => ({ ...event }));
  }

  clearRoleEvents(): void {
    this.events.length = 0;
  }

  // ---- permissions --------------------------------------------------------------------------

  /** The bot's guild-level permissions; the owner has all of them. */
  memberPermissions(guild: GuildRecord, userId: string): bigint {
    const member = guild.members.get(userId);
    if (!member) return 0n;
    if (guild.ownerId === userId) return basePermissions(Permission.Administrator, []);
    const everyone = guild.roles.get(guild.id)?.permissions ?? 0n;
    const bits = member.roleIds.map((id) => guild.roles.get(id)?.permissions ?? 0n);
    return basePermissions(everyone, bits);
  }

  /** The highest role of a member, @everyone when it has none. */
  highestRoleOf(guild: GuildRecord, userId: string): RoleRecord {
    const member = guild.members.get(userId);
    const roles = (member?.roleIds ?? []).map((id) => guild.roles.get(id)).filter((r): r is RoleRecord => r !== undefined);
    const everyone = guild.roles.get(guild.id);
    if (!everyone) throw new SandboxUsageError(`guild ${guild.id} lost its @everyone role`);
    return highestRole(roles) ?? everyone;
  }

  /**
   * Whether `actorId` may add or remove `role` on someone: Manage Roles, and the role strictly below
   * the actor's highest role, unless the actor owns the guild (Discord's docs, Permissions; docs/discord-api-notes.md §7
   * "Permission Hierarchy"; docs/tech-facts.md §1).
   */
  canManageRole(guild: GuildRecord, actorId: string, role: RoleRecord): boolean {
    if (!hasPermission(this.memberPermissions(guild, actorId), Permission.ManageRoles)) return false;
    if (guild.ownerId === actorId) return true;
    return compareRolePositions(this.highestRoleOf(guild, actorId), role) > 0;
  }

  // ---- snapshots ----------------------------------------------------------------------------

  guildSnapshot(guildId: string): GuildSnapshot {
    const guild = this.requireGuild(guildId);
    return {
      id: guild.id,
      name: guild.name,
      ownerId: guild.ownerId,
      everyoneRoleId: guild.id,
      botRoleId: guild.botRoleId,
      channelId: guild.channelId,
      memberCount: guild.members.size,
      maxMembers: guild.maxMembers,
      channels: [...guild.channels.values()].map(channelSnapshot),
      roles: [...guild.roles.values()].sort((a, b) => compareRolePositions(a, b)).map(roleSnapshot),
    };
  }

  memberSnapshot(guildId: string, userId: string): MemberSnapshot {
    const member = this.requireMember(guildId, userId);
    return memberSnapshot(member, this.users.get(userId));
  }
}

export function roleSnapshot(role: RoleRecord): RoleSnapshot {
  const snapshot: RoleSnapshot = {
    id: role.id,
    name: role.name,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: role.managed,
    color: role.color,
    hoist: role.hoist,
    mentionable: role.mentionable,
  };
  if (role.botId) snapshot.botId = role.botId;
  return snapshot;
}

function memberSnapshot(member: MemberRecord, user: UserRecord | undefined): MemberSnapshot {
  return {
    userId: member.userId,
    username: user?.username ?? 'unknown',
    roleIds: [...member.roleIds],
    joinedAt: member.joinedAt,
    pending: member.pending,
  };
}

export function channelSnapshot(channel: ChannelRecord): ChannelSnapshot {
  return {
    id: channel.id,
    guildId: channel.guildId,
    name: channel.name,
    type: channel.type,
    parentId: channel.parentId,
    overwrites: channel.overwrites.map((o) => ({
      id: o.id,
      type: o.type === 0 ? 'role' : 'member',
      allow: o.allow.toString(),
      deny: o.deny.toString(),
    })),
  };
}
