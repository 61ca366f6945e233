import type { ChannelRecord, GuildRecord, MemberRecord, RoleRecord, UserRecord } from './state';

/**
 * JSON shapes of Discord's API v10 objects (Discord's docs, User and Guild resources,
 * Permissions; the fields discord.js reads are listed in docs/tech-facts.md §3).
 */
export type Json = Record<string, unknown>;

export function userJson(user: UserRecord): Json {
  const json: Json = {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.globalName,
    avatar: null,
    public_flags: 0,
  };
  if (user.bot) json.bot = true;
  return json;
}

export function roleJson(role: RoleRecord): Json {
  const json: Json = {
    id: role.id,
    name: role.name,
    color: role.color,
    colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
    hoist: role.hoist,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: role.managed,
    mentionable: role.mentionable,
    flags: 0,
  };
  if (role.botId) json.tags = { bot_id: role.botId };
  return json;
}

export function memberJson(member: MemberRecord, user: UserRecord): Json {
  return {
    user: userJson(user),
    nick: member.nick,
    avatar: null,
    banner: null,
    roles: [...member.roleIds],
    joined_at: member.joinedAt.toISOString(),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: member.pending,
    communication_disabled_until: null,
  };
}

export function channelJson(channel: ChannelRecord): Json {
  return {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guildId,
    name: channel.name,
    position: channel.position,
    permission_overwrites: channel.overwrites.map((o) => ({ id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString() })),
    nsfw: false,
    topic: channel.topic,
    last_message_id: null,
    rate_limit_per_user: 0,
    parent_id: channel.parentId,
    flags: 0,
  };
}

export function guildJson(guild: GuildRecord): Json {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [...guild.roles.values()].map(roleJson),
    emojis: [],
    stickers: [],
    features: guild.screening ? ['COMMUNITY', 'MEMBER_VERIFICATION_GATE_ENABLED'] : [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    max_members: guild.maxMembers,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: guild.preferredLocale,
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
  };
}
