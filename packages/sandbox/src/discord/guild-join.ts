import { ApiErrors } from './api-error';
import type { RouteContext, RouteDefinition, RouteResult } from './http-router';
import type { OAuth2Store } from './oauth2-store';
import { Permission, hasPermission } from './permissions';
import type { CoreContext } from './rest-routes';
import { accessGuild } from './rest-routes';
import { memberJson, userJson } from './serialize';
import { type GuildRecord, USER_GUILD_LIMIT } from './state';

interface JoinBody {
  accessToken: string;
  roles: string[] | null;
  nick: string | null;
  mute: boolean | null;
  deaf: boolean | null;
}

function field(path: string, code: string, message: string): never {
  throw ApiErrors.invalidFormBody(path, code, message);
}

/** "All parameters … except for access_token are optional" (docs/discord-api-notes.md §2). */
function readBody(body: unknown): JoinBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    field('_', 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  const b = body as Record<string, unknown>;
  if (typeof b.access_token !== 'string' || b.access_token === '') field('access_token', 'BASE_TYPE_REQUIRED', 'This field is required');
  let roles: string[] | null = null;
  if (b.roles !== undefined && b.roles !== null) {
    if (!Array.isArray(b.roles) || b.roles.some((r) => typeof r !== 'string' || !/^\d{1,20}$/.test(r))) {
      field('roles', 'LIST_TYPE_CONVERT', 'Only iterables of snowflakes may be used in a ListType');
    }
    roles = b.roles as string[];
  }
  let nick: string | null = null;
  if (b.nick !== undefined && b.nick !== null) {
    if (typeof b.nick !== 'string' || [...b.nick].length > 32) field('nick', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 32 in length.');
    nick = b.nick;
  }
  const flag = (name: 'mute' | 'deaf'): boolean | null => {
    const value = b[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'boolean') field(name, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    return value;
  };
  return { accessToken: b.access_token, roles, nick, mute: flag('mute'), deaf: flag('deaf') };
}

/**
 * What the bot needs for the optional fields: MANAGE_ROLES and every role assignable by it (below its
 * highest role, neither @everyone nor managed), MANAGE_NICKNAMES, MUTE_MEMBERS, DEAFEN_MEMBERS.
 */
function assertBotMayApply(core: CoreContext, guild: GuildRecord, body: JoinBody): void {
  const { state } = core;
  const botId = state.botUser.id;
  const bits = state.memberPermissions(guild, botId);
  if (body.roles !== null && body.roles.length > 0) {
    for (const roleId of body.roles) {
      const role = guild.roles.get(roleId);
      if (!role) throw ApiErrors.unknownRole();
      if (role.id === guild.id || role.managed || !state.canManageRole(guild, botId, role)) throw ApiErrors.missingPermissions();
    }
  }
  if (body.nick !== null && !hasPermission(bits, Permission.ManageNicknames)) throw ApiErrors.missingPermissions();
  if (body.mute !== null && !hasPermission(bits, Permission.MuteMembers)) throw ApiErrors.missingPermissions();
  if (body.deaf !== null && !hasPermission(bits, Permission.DeafenMembers)) throw ApiErrors.missingPermissions();
}

/**
 * Add Guild Member, `PUT /guilds/{guild.id}/members/{user.id}` (docs/discord-api-notes.md §2): the
 * bot of the same application adds a user who gave it an access token with `guilds.join`. The checks,
 * in order: the guild (10004, or 50001 without the bot), the body (50035), the user's token (50025:
 * bad, expired, revoked, without `guilds.join`, of another user or another application, as Discord
 * staff list the causes), the bot's CREATE_INSTANT_INVITE (50013), membership (204, nothing applied),
 * a ban (40007), the member cap (30019), the user's own server limit (30001: 100 servers, 200 with
 * Nitro), then what the optional fields need (50013). 201 with the
 * member when added. GUILD_MEMBER_ADD is dispatched on both answers: the docs say the call fires it,
 * and that the event "may also be sent for users who are already members".
 */
export function guildJoinRoutes(core: CoreContext, oauth: OAuth2Store): RouteDefinition[] {
  const { state } = core;
  const authed = { auth: 'bot', global: true } as const;

  function join(ctx: RouteContext): RouteResult {
    const guild = accessGuild(core, ctx.params.g ?? '');
    const userId = ctx.params.u ?? '';
    const body = readBody(ctx.body);
    const grant = oauth.grantOf(body.accessToken);
    if (!grant || grant.userId !== userId || grant.applicationId !== core.applicationId || !grant.scopes.includes('guilds.join')) {
      throw ApiErrors.invalidOAuthToken();
    }
    const botId = state.botUser.id;
    if (!hasPermission(state.memberPermissions(guild, botId), Permission.CreateInstantInvite)) throw ApiErrors.missingPermissions();
    if (guild.members.has(userId)) {
      state.announceMember(guild.id, userId);
      return { status: 204 };
    }
    if (guild.bans.has(userId)) throw ApiErrors.userBanned();
    if (guild.members.size >= guild.maxMembers) throw ApiErrors.maxMembersReached();
    const joiner = state.users.get(userId);
    const limit = joiner?.nitro ? USER_GUILD_LIMIT.nitro : USER_GUILD_LIMIT.standard;
    if (state.guildCountOf(userId) >= limit) throw ApiErrors.maxGuildsReached(limit);
    assertBotMayApply(core, guild, body);
    const member = state.joinMember(guild.id, userId, body.roles ?? [], body.nick, ctx.reason);
    const user = state.users.get(userId);
    if (!user) throw ApiErrors.unknownUser();
    return { status: 201, body: memberJson(member, user) };
  }

  return [
    { ...authed, method: 'PUT', template: '/guilds/:g/members/:u', bucket: 'member', major: ['g'], handle: join },
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g/bans/:u',
      bucket: 'bans',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, ctx.params.g ?? '');
        if (!hasPermission(state.memberPermissions(guild, state.botUser.id), Permission.BanMembers)) throw ApiErrors.missingPermissions();
        const userId = ctx.params.u ?? '';
        const ban = guild.bans.get(userId);
        const user = state.users.get(userId);
        if (!ban || !user) throw ApiErrors.unknownBan();
        return { status: 200, body: { reason: ban.reason, user: userJson(user) } };
      },
    },
  ];
}
