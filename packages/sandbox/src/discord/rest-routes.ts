import type { Clock } from '../support/clock';
import { ApiErrors } from './api-error';
import type { RouteContext, RouteDefinition, RouteResult } from './http-router';
import { compareRolePositions } from './permissions';
import { guildJson, memberJson, roleJson, userJson } from './serialize';
import type { DiscordState, GuildRecord, MemberRecord, RoleRecord } from './state';
import { compareIds } from './snowflakes';

export interface CoreContext {
  state: DiscordState;
  clock: Clock;
  applicationId: string;
  applicationName: string;
  /** `ws://127.0.0.1:PORT`, known once the server listens. */
  gatewayUrl(): string;
  /** The application's public key (hex), what DISCORD_PUBLIC_KEY holds. */
  verifyKey: string;
  /** The Interactions Endpoint URL when one is set (HTTP interactions), else null. */
  interactionsEndpointUrl(): string | null;
  /** What `GET /gateway/bot` answers: the URL, the recommended shards and the session start limit. */
  gatewayBot(): Record<string, unknown>;
}

const json = (body: unknown, status = 200): RouteResult => ({ status, body });
const noContent = (): RouteResult => ({ status: 204 });

/** Guild the bot can see: 10004 when it does not exist, 50001 when the bot is not in it. */
export function accessGuild(core: CoreContext, guildId: string): GuildRecord {
  const guild = core.state.guild(guildId);
  if (!guild) throw ApiErrors.unknownGuild();
  if (!guild.members.has(core.state.botUser.id)) throw ApiErrors.missingAccess();
  return guild;
}

function requireMember(guild: GuildRecord, userId: string): MemberRecord {
  const member = guild.members.get(userId);
  if (!member) throw ApiErrors.unknownMember();
  return member;
}

function requireRole(guild: GuildRecord, roleId: string): RoleRecord {
  const role = guild.roles.get(roleId);
  if (!role) throw ApiErrors.unknownRole();
  return role;
}

/**
 * The checks Discord makes before the bot changes a member's role: Manage Roles (Administrator counts),
 * never @everyone or a managed role, and only roles strictly below the bot's highest role unless the
 * bot owns the guild (docs/tech-facts.md §1 "Role hierarchy"). Refusals are 403 / 50013.
 */
function assertBotMayChange(core: CoreContext, guild: GuildRecord, role: RoleRecord): void {
  const botId = core.state.botUser.id;
  if (role.id === guild.id || role.managed) throw ApiErrors.missingPermissions();
  if (!core.state.canManageRole(guild, botId, role)) throw ApiErrors.missingPermissions();
}

function memberResponse(core: CoreContext, member: MemberRecord): Record<string, unknown> {
  const user = core.state.users.get(member.userId);
  if (!user) throw ApiErrors.unknownUser();
  return memberJson(member, user);
}

/** `limit` of the member list: 1 when absent, otherwise an integer in 1..1000 (Discord's docs, Guild resource; docs/tech-facts.md §1). */
function parseLimit(raw: string | null): number {
  if (raw === null) return 1;
  if (!/^-?\d+$/.test(raw)) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_COERCE', `Value "${raw}" is not int.`);
  const limit = Number(raw);
  if (limit < 1) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.');
  if (limit > 1000) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 1000.');
  return limit;
}

function parseAfter(raw: string | null): string {
  if (raw === null) return '0';
  if (!/^\d{1,20}$/.test(raw)) throw ApiErrors.invalidFormBody('after', 'NUMBER_TYPE_COERCE', `Value "${raw}" is not snowflake.`);
  return raw.replace(/^0+(?=\d)/, '');
}

function firstIndexAfter(sorted: readonly string[], after: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareIds(sorted[mid] ?? '', after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function requireParam(ctx: RouteContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`route parameter ${name} missing`);
  return value;
}

export function restRoutes(core: CoreContext): RouteDefinition[] {
  const { state } = core;
  const botId = state.botUser.id;
  const authed = { auth: 'bot', global: true } as const;

  return [
    {
      ...authed,
      method: 'GET',
      template: '/gateway/bot',
      bucket: 'gateway',
      major: [],
      handle: () => json(core.gatewayBot()),
    },
    {
      auth: 'none',
      global: true,
      method: 'GET',
      template: '/gateway',
      bucket: 'gateway',
      major: [],
      handle: () => json({ url: core.gatewayUrl() }),
    },
    // "Get Current Application" and its older twin "Get Current Bot Application Information".
    ...['/applications/@me', '/oauth2/applications/@me'].map((template): RouteDefinition => ({
      ...authed,
      method: 'GET',
      template,
      bucket: 'application',
      major: [],
      handle: () =>
        json({
          id: core.applicationId,
          name: core.applicationName,
          icon: null,
          description: '',
          bot_public: state.botPublic,
          bot_require_code_grant: false,
          bot: userJson(state.botUser),
          verify_key: core.verifyKey,
          interactions_endpoint_url: core.interactionsEndpointUrl(),
          flags: state.membersIntentEnabled ? 1 << 15 : 0,
          owner: { id: '0', username: 'owner', discriminator: '0', global_name: null, avatar: null, public_flags: 0 },
          team: null,
          approximate_guild_count: [...state.guilds.values()].filter((g) => g.members.has(botId)).length,
          install_params: null,
          integration_types_config: {},
        }),
    })),
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g',
      bucket: 'guild',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        const body = guildJson(guild);
        if (ctx.query.get('with_counts') === 'true') {
          body.approximate_member_count = guild.members.size;
          body.approximate_presence_count = 0;
        }
        return json(body);
      },
    },
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g/roles',
      bucket: 'roles',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        return json([...guild.roles.values()].sort((a, b) => compareRolePositions(a, b)).map(roleJson));
      },
    },
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g/members',
      bucket: 'members-list',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        const limit = parseLimit(ctx.query.get('limit'));
        const after = parseAfter(ctx.query.get('after'));
        // "This endpoint requires the GUILD_MEMBERS Privileged Intent" (Discord's docs, Guild resource; docs/tech-facts.md §1).
        if (!state.membersIntentEnabled) throw ApiErrors.missingAccess();
        const sorted = state.sortedMemberIds(guild);
        const start = firstIndexAfter(sorted, after);
        const page = sorted.slice(start, start + limit).map((id) => memberResponse(core, requireMember(guild, id)));
        return json(page);
      },
    },
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g/members/search',
      bucket: 'members-search',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        const query = ctx.query.get('query');
        if (query === null) throw ApiErrors.invalidFormBody('query', 'BASE_TYPE_REQUIRED', 'This field is required');
        const limit = parseLimit(ctx.query.get('limit'));
        // "whose username or nickname starts with a provided string" (Discord's docs, Search Guild Members).
        const needle = query.toLowerCase();
        const found = state
          .sortedMemberIds(guild)
          .map((id) => requireMember(guild, id))
          .filter((member) => {
            const username = state.users.get(member.userId)?.username ?? '';
            return username.toLowerCase().startsWith(needle) || (member.nick ?? '').toLowerCase().startsWith(needle);
          });
        return json(found.slice(0, limit).map((member) => memberResponse(core, member)));
      },
    },
    {
      ...authed,
      method: 'GET',
      template: '/guilds/:g/members/:u',
      bucket: 'member',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        return json(memberResponse(core, requireMember(guild, requireParam(ctx, 'u'))));
      },
    },
    {
      ...authed,
      method: 'PATCH',
      template: '/guilds/:g/members/:u',
      bucket: 'member',
      major: ['g'],
      handle: (ctx) => patchMember(core, ctx),
    },
    ...(['PUT', 'DELETE'] as const).map((method): RouteDefinition => ({
      ...authed,
      method,
      template: '/guilds/:g/members/:u/roles/:r',
      bucket: 'member-role',
      major: ['g'],
      handle: (ctx) => {
        const guild = accessGuild(core, requireParam(ctx, 'g'));
        const member = requireMember(guild, requireParam(ctx, 'u'));
        const role = requireRole(guild, requireParam(ctx, 'r'));
        assertBotMayChange(core, guild, role);
        if (method === 'PUT') state.addMemberRole(guild.id, member.userId, role.id, 'rest', ctx.reason);
        else state.removeMemberRole(guild.id, member.userId, role.id, 'rest', ctx.reason);
        return noContent();
      },
    })),
  ];
}

/**
 * `PATCH /guilds/{g}/members/{u}` replaces the whole role list (docs/tech-facts.md §1). Tierlink
 * must never send it; the sandbox implements it faithfully and logs its changes with `via: 'patch'`
 * so a test can prove that.
 */
function patchMember(core: CoreContext, ctx: RouteContext): RouteResult {
  const { state } = core;
  const guild = accessGuild(core, requireParam(ctx, 'g'));
  const member = requireMember(guild, requireParam(ctx, 'u'));
  const body = ctx.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ApiErrors.invalidFormBody('_', 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  const patch = body as Record<string, unknown>;
  const unsupported = Object.keys(patch).find((key) => key !== 'roles');
  if (unsupported) throw ApiErrors.invalidFormBody(unsupported, 'SANDBOX_UNSUPPORTED', 'The Discord sandbox only implements roles here.');
  if ('roles' in patch) {
    const roles = patch.roles;
    if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) {
      throw ApiErrors.invalidFormBody('roles', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    }
    const next = [...new Set(roles as string[])];
    for (const id of next) requireRole(guild, id);
    const before = new Set(member.roleIds);
    const after = new Set(next);
    const changed = [...next.filter((id) => !before.has(id)), ...member.roleIds.filter((id) => !after.has(id))];
    for (const id of changed) assertBotMayChange(core, guild, requireRole(guild, id));
    if (next.includes(guild.id)) throw ApiErrors.missingPermissions();
    state.setMemberRoles(guild.id, member.userId, next, 'patch', ctx.reason);
  }
  return json(memberResponse(core, member));
}
