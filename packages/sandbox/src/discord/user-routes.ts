import { ApiErrors } from './api-error';
import type { Principal, RouteDefinition, RouteResult } from './http-router';
import type { CoreContext } from './rest-routes';
import { memberJson, userJson } from './serialize';
import type { Json } from './serialize';
import { compareIds } from './snowflakes';

/**
 * A user token lacking the scope a route needs is answered like no token at all: 401 with code 0, as
 * Discord does (reported for `/users/@me/guilds` without `guilds`, docs/discord-api-notes.md §1.4–1.5).
 */
function requireScope(principal: Principal, scope: string): void {
  if (principal.kind === 'bearer' && !principal.grant.scopes.includes(scope)) throw ApiErrors.unauthorized();
}

/** The user a request acts as: the bot, or the user behind the access token. */
function actingUserId(core: CoreContext, principal: Principal): string {
  return principal.kind === 'bearer' ? principal.grant.userId : core.state.botUser.id;
}

/** `limit` of Get Current User Guilds: 1–200, 200 when absent (docs/discord-api-notes.md §1.5). */
function guildLimit(raw: string | null): number {
  if (raw === null) return 200;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw)) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_COERCE', `Value "${raw}" is not int.`);
  if (limit < 1) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.');
  if (limit > 200) throw ApiErrors.invalidFormBody('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 200.');
  return limit;
}

function snowflakeQuery(raw: string | null, name: string): string | null {
  if (raw === null) return null;
  if (!/^\d{1,20}$/.test(raw)) throw ApiErrors.invalidFormBody(name, 'NUMBER_TYPE_COERCE', `Value "${raw}" is not snowflake.`);
  return raw.replace(/^0+(?=\d)/, '');
}

/**
 * The routes a user token reaches (`identify`, `guilds`, `guilds.members.read`; docs/discord-api-notes.md
 * §1.4–1.5), which also answer the bot where Discord lets it call them.
 */
export function userRoutes(core: CoreContext): RouteDefinition[] {
  const { state } = core;
  const ok = (body: unknown): RouteResult => ({ status: 200, body });
  const common = { global: true, bucket: 'user', major: [] } as const;

  return [
    {
      ...common,
      auth: 'bot-or-bearer',
      method: 'GET',
      template: '/users/@me',
      handle: ({ principal }) => {
        if (principal.kind !== 'bearer') return ok({ ...userJson(state.botUser), verified: true, mfa_enabled: false, flags: 0 });
        requireScope(principal, 'identify');
        const user = state.users.get(principal.grant.userId);
        if (!user) throw ApiErrors.unauthorized();
        const body: Json = {
          ...userJson(user),
          mfa_enabled: false,
          locale: user.locale,
          flags: 0,
          banner: null,
          accent_color: null,
        };
        // `email` and `verified` need the `email` scope; `premium_type` needs `identify.premium`, not granted here.
        if (principal.grant.scopes.includes('email')) {
          body.email = `${user.username}@users.sandbox.invalid`;
          body.verified = true;
        }
        return ok(body);
      },
    },
    {
      ...common,
      auth: 'bot',
      method: 'GET',
      template: '/users/:u',
      handle: (ctx) => {
        const user = state.users.get(ctx.params.u ?? '');
        if (!user) throw ApiErrors.unknownUser();
        return ok(userJson(user));
      },
    },
    {
      ...common,
      // Its own bucket per user: dashboards report 429s here (docs/discord-api-notes.md §1.5).
      bucket: 'user-guilds',
      auth: 'bot-or-bearer',
      method: 'GET',
      template: '/users/@me/guilds',
      handle: ({ principal, query }) => {
        requireScope(principal, 'guilds');
        const userId = actingUserId(core, principal);
        const limit = guildLimit(query.get('limit'));
        const before = snowflakeQuery(query.get('before'), 'before');
        const after = snowflakeQuery(query.get('after'), 'after');
        const withCounts = query.get('with_counts') === 'true';
        let guilds = [...state.guilds.values()].filter((g) => g.members.has(userId)).sort((a, b) => compareIds(a.id, b.id));
        if (after !== null) guilds = guilds.filter((g) => compareIds(g.id, after) > 0);
        if (before !== null) guilds = guilds.filter((g) => compareIds(g.id, before) < 0).slice(-limit);
        return ok(
          guilds.slice(0, limit).map((guild) => {
            // "relative to the requested user"; guild-level, without channel overwrites (docs/discord-api-notes.md §1.5).
            const partial: Json = {
              id: guild.id,
              name: guild.name,
              icon: null,
              banner: null,
              owner: guild.ownerId === userId,
              permissions: state.memberPermissions(guild, userId).toString(),
              features: [],
            };
            if (withCounts) {
              partial.approximate_member_count = guild.members.size;
              partial.approximate_presence_count = 0;
            }
            return partial;
          }),
        );
      },
    },
    {
      ...common,
      auth: 'bearer',
      method: 'GET',
      template: '/users/@me/guilds/:g/member',
      handle: ({ principal, params }) => {
        requireScope(principal, 'guilds.members.read');
        const userId = actingUserId(core, principal);
        const member = state.guild(params.g ?? '')?.members.get(userId);
        const user = state.users.get(userId);
        if (!member || !user) throw ApiErrors.unknownGuild();
        return ok(memberJson(member, user));
      },
    },
    {
      ...common,
      auth: 'bearer',
      method: 'GET',
      template: '/oauth2/@me',
      handle: ({ principal }) => {
        if (principal.kind !== 'bearer') throw ApiErrors.unauthorized();
        const { grant } = principal;
        const ours = grant.applicationId === core.applicationId;
        const body: Json = {
          application: {
            id: grant.applicationId,
            name: ours ? core.applicationName : 'Another application',
            icon: null,
            description: '',
            hook: true,
            bot_public: false,
            bot_require_code_grant: false,
            verify_key: ours ? core.verifyKey : '0'.repeat(64),
          },
          scopes: [...grant.scopes],
          expires: grant.expiresAt.toISOString(),
        };
        const user = state.users.get(grant.userId);
        if (user && grant.scopes.includes('identify')) body.user = userJson(user);
        return ok(body);
      },
    },
  ];
}
