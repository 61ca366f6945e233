import { matchTemplate } from './http-router';
import { SandboxUsageError } from './state';
import type { DiscordSandbox } from './server';
import type { OverwriteInput } from './state';
import type { FaultSpec, RateLimitSetting } from './types';

export interface ControlAnswer {
  status: number;
  body?: unknown;
}

interface ControlRoute {
  method: string;
  template: string;
  handle(params: Record<string, string>, query: URLSearchParams, body: Record<string, unknown>): unknown;
}

function optionalBigInt(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new SandboxUsageError(`${field} must be a permission bit set (decimal string)`);
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SandboxUsageError(`${field} must be a string`);
  return value;
}

function optionalNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new SandboxUsageError(`${field} must be a number`);
  return value;
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new SandboxUsageError(`${field} must be an array of ids`);
  return value as string[];
}

function overwrites(value: unknown): OverwriteInput[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new SandboxUsageError('overwrites must be an array');
  return value.map((raw: unknown): OverwriteInput => {
    const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    if (o.type !== 'role' && o.type !== 'member') throw new SandboxUsageError('an overwrite type is role or member');
    return {
      id: required(optionalString(o.id, 'id'), 'id'),
      type: o.type,
      allow: optionalBigInt(o.allow, 'allow'),
      deny: optionalBigInt(o.deny, 'deny'),
    };
  });
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new SandboxUsageError(`${field} is required`);
  return value;
}

/**
 * The sandbox's HTTP control API under `/__sandbox` (JSON; bigints as decimal strings), the same
 * controls the in-process methods of {@link DiscordSandbox} offer, for the demo and for tools outside
 * the test process. A misuse answers 400 `{ error }`; a route that returns nothing answers 204.
 *
 * - Guilds, roles, members: `GET|POST /guilds` (POST takes `everyonePermissions`, `maxMembers`,
 *   `shard: [id, count]`), `GET|PATCH /guilds/:g` (`maxMembers`), `/guilds/:g/roles[/:r]`,
 *   `/guilds/:g/members[/:u[/roles]]`, `POST /guilds/:g/generate`, `GET /role-events`.
 * - Bans: `GET /guilds/:g/bans`, `PUT|DELETE /guilds/:g/bans/:u` (`reason`).
 * - Channels and messages: `POST /guilds/:g/channels` (`name`, `type`, `parentId`, `overwrites:
 *   [{ id, type: 'role'|'member', allow, deny }]`), `PATCH|DELETE /channels/:c`,
 *   `GET /channels/:c/messages` (what the bot posted).
 * - OAuth2: `GET|PUT /oauth2/application` (`clientSecret`, `redirectUris`), `POST /users`,
 *   `POST /oauth2/authorizations` (`url`, `userId`, `decision: 'deny'`) → `{ location }`,
 *   `POST /oauth2/tokens` (`userId`, `scopes`), `DELETE /oauth2/authorizations/:u`.
 * - Interactions: `POST /interactions` (a command; `focused` for autocomplete), `GET /interactions/:i/
 *   responses|delivery`, `GET|PUT /interactions-endpoint` (`url`, null to remove),
 *   `POST /interactions-endpoint/check`.
 * - Gateway: `PUT /gateway` (sharding settings), `GET /gateway/sessions|identifies|closes`,
 *   `PUT /members-intent`.
 * - Requests and limits: `GET|DELETE /requests`, `GET /rate-limit-hits`, `POST /rate-limits`,
 *   `POST /faults`, `GET /commands`.
 */
export function controlRoutes(sandbox: DiscordSandbox): ControlRoute[] {
  return [
    { method: 'GET', template: '/guilds', handle: () => sandbox.guilds() },
    {
      method: 'POST',
      template: '/guilds',
      handle: (_p, _q, b) =>
        sandbox.createGuild({
          name: optionalString(b.name, 'name'),
          ownerId: optionalString(b.ownerId, 'ownerId'),
          botPermissions: optionalBigInt(b.botPermissions, 'botPermissions'),
          botRolePosition: optionalNumber(b.botRolePosition, 'botRolePosition'),
          everyonePermissions: optionalBigInt(b.everyonePermissions, 'everyonePermissions'),
          maxMembers: optionalNumber(b.maxMembers, 'maxMembers'),
          shard: Array.isArray(b.shard) ? { id: Number(b.shard[0]), count: Number(b.shard[1]) } : undefined,
        }),
    },
    {
      method: 'PATCH',
      template: '/guilds/:g',
      handle: (p, _q, b) => {
        const maxMembers = optionalNumber(b.maxMembers, 'maxMembers');
        if (maxMembers !== undefined) sandbox.setMaxMembers(p.g ?? '', maxMembers);
        return sandbox.guild(p.g ?? '');
      },
    },
    { method: 'GET', template: '/guilds/:g/bans', handle: (p) => sandbox.bans(p.g ?? '') },
    {
      method: 'POST',
      template: '/guilds/:g/channels',
      handle: (p, _q, b) =>
        sandbox.createChannel(p.g ?? '', {
          name: required(optionalString(b.name, 'name'), 'name'),
          type: optionalNumber(b.type, 'type') as 0 | 2 | 4 | 5 | undefined,
          parentId: optionalString(b.parentId, 'parentId'),
          topic: optionalString(b.topic, 'topic'),
          overwrites: overwrites(b.overwrites),
        }),
    },
    {
      method: 'PATCH',
      template: '/channels/:c',
      handle: (p, _q, b) =>
        sandbox.updateChannel(p.c ?? '', { name: optionalString(b.name, 'name'), overwrites: overwrites(b.overwrites) }),
    },
    { method: 'DELETE', template: '/channels/:c', handle: (p) => sandbox.deleteChannel(p.c ?? '') },
    { method: 'GET', template: '/channels/:c/messages', handle: (p) => sandbox.messages(p.c ?? '') },
    {
      method: 'PUT',
      template: '/guilds/:g/bans/:u',
      handle: (p, _q, b) => sandbox.banUser(p.g ?? '', p.u ?? '', { reason: optionalString(b.reason, 'reason') }),
    },
    { method: 'DELETE', template: '/guilds/:g/bans/:u', handle: (p) => sandbox.unbanUser(p.g ?? '', p.u ?? '') },
    { method: 'GET', template: '/guilds/:g', handle: (p) => sandbox.guild(p.g ?? '') },
    {
      method: 'POST',
      template: '/guilds/:g/roles',
      handle: (p, _q, b) =>
        sandbox.createRole(p.g ?? '', {
          name: required(optionalString(b.name, 'name'), 'name'),
          position: optionalNumber(b.position, 'position'),
          managed: b.managed === true,
          permissions: optionalBigInt(b.permissions, 'permissions'),
        }),
    },
    {
      method: 'PATCH',
      template: '/guilds/:g/roles/:r',
      handle: (p, _q, b) =>
        sandbox.updateRole(p.g ?? '', p.r ?? '', {
          name: optionalString(b.name, 'name'),
          position: optionalNumber(b.position, 'position'),
          permissions: optionalBigInt(b.permissions, 'permissions'),
          managed: typeof b.managed === 'boolean' ? b.managed : undefined,
        }),
    },
    { method: 'DELETE', template: '/guilds/:g/roles/:r', handle: (p) => sandbox.deleteRole(p.g ?? '', p.r ?? '') },
    {
      method: 'GET',
      template: '/guilds/:g/members',
      handle: (p, q) => {
        const limit = Number(q.get('limit') ?? '1000');
        return sandbox.members(p.g ?? '', { limit: Number.isFinite(limit) ? limit : 1000, after: q.get('after') ?? undefined });
      },
    },
    {
      method: 'POST',
      template: '/guilds/:g/members',
      handle: (p, _q, b) =>
        sandbox.addMember(p.g ?? '', {
          userId: optionalString(b.userId, 'userId'),
          username: optionalString(b.username, 'username'),
          roleIds: stringList(b.roleIds, 'roleIds'),
        }),
    },
    { method: 'DELETE', template: '/guilds/:g/members/:u', handle: (p) => sandbox.removeMember(p.g ?? '', p.u ?? '') },
    { method: 'GET', template: '/guilds/:g/members/:u/roles', handle: (p) => ({ roleIds: sandbox.memberRoles(p.g ?? '', p.u ?? '') }) },
    {
      method: 'PUT',
      template: '/guilds/:g/members/:u/roles',
      handle: (p, _q, b) => sandbox.setMemberRolesByHand(p.g ?? '', p.u ?? '', required(stringList(b.roleIds, 'roleIds'), 'roleIds')),
    },
    {
      method: 'POST',
      template: '/guilds/:g/generate',
      handle: (p, _q, b) => {
        const generated = sandbox.generateGuild({
          guildId: p.g ?? '',
          members: required(optionalNumber(b.members, 'members'), 'members'),
          seed: optionalNumber(b.seed, 'seed') ?? 1,
        });
        return { count: generated.userIds.length, firstUserId: generated.userIds[0] ?? null, lastUserId: generated.userIds.at(-1) ?? null };
      },
    },
    { method: 'GET', template: '/role-events', handle: () => sandbox.roleEvents() },
    {
      method: 'GET',
      template: '/requests',
      handle: () => ({ requests: sandbox.requests(), invalidRequests: sandbox.invalidRequestCount() }),
    },
    { method: 'DELETE', template: '/requests', handle: () => sandbox.resetRequests() },
    {
      method: 'POST',
      template: '/interactions',
      handle: (_p, _q, b) =>
        sandbox.injectCommand({
          guildId: required(optionalString(b.guildId, 'guildId'), 'guildId'),
          userId: required(optionalString(b.userId, 'userId'), 'userId'),
          name: required(optionalString(b.name, 'name'), 'name'),
          options: Array.isArray(b.options) ? (b.options as Array<Record<string, unknown>>) : undefined,
          subcommand: optionalString(b.subcommand, 'subcommand'),
          memberPermissions: optionalString(b.memberPermissions, 'memberPermissions'),
          focused: optionalString(b.focused, 'focused'),
          channelId: optionalString(b.channelId, 'channelId'),
        }),
    },
    {
      method: 'POST',
      template: '/interactions/:i/buttons',
      handle: (p, _q, b) =>
        sandbox.pressButton({
          interactionId: p.i ?? '',
          customId: required(optionalString(b.customId, 'customId'), 'customId'),
          userId: optionalString(b.userId, 'userId'),
          messageId: optionalString(b.messageId, 'messageId'),
        }),
    },
    { method: 'GET', template: '/interactions/:i/responses', handle: (p) => sandbox.interactionResponses(p.i ?? '') },
    { method: 'GET', template: '/interactions/:i/delivery', handle: (p) => sandbox.interactionDelivery(p.i ?? '') },
    {
      method: 'GET',
      template: '/interactions-endpoint',
      handle: () => ({ url: sandbox.interactionsEndpointUrl(), publicKey: sandbox.publicKey }),
    },
    {
      method: 'PUT',
      template: '/interactions-endpoint',
      handle: async (_p, _q, b) => {
        await sandbox.setInteractionsEndpoint(optionalString(b.url, 'url') ?? null);
        return { url: sandbox.interactionsEndpointUrl(), publicKey: sandbox.publicKey };
      },
    },
    { method: 'POST', template: '/interactions-endpoint/check', handle: async () => ({ kept: await sandbox.checkInteractionsEndpoint() }) },
    { method: 'GET', template: '/gateway/closes', handle: () => sandbox.gatewayCloses() },
    { method: 'GET', template: '/gateway/sessions', handle: () => sandbox.gatewaySessions() },
    { method: 'GET', template: '/gateway/identifies', handle: () => sandbox.gatewayIdentifies() },
    {
      method: 'PUT',
      template: '/gateway',
      handle: (_p, _q, b) =>
        sandbox.setGatewayOptions({
          shards: optionalNumber(b.shards, 'shards'),
          maxConcurrency: optionalNumber(b.maxConcurrency, 'maxConcurrency'),
          identifyIntervalMs: optionalNumber(b.identifyIntervalMs, 'identifyIntervalMs'),
          maxGuildsPerShard: optionalNumber(b.maxGuildsPerShard, 'maxGuildsPerShard'),
          sessionStartLimit: optionalNumber(b.sessionStartLimit, 'sessionStartLimit'),
        }),
    },
    { method: 'GET', template: '/rate-limit-hits', handle: () => sandbox.rateLimitHits() },
    {
      method: 'POST',
      template: '/users',
      handle: (_p, _q, b) =>
        sandbox.createUser({
          userId: optionalString(b.userId, 'userId'),
          username: optionalString(b.username, 'username'),
          globalName: optionalString(b.globalName, 'globalName'),
        }),
    },
    { method: 'GET', template: '/oauth2/application', handle: () => sandbox.oauth2Application() },
    {
      method: 'PUT',
      template: '/oauth2/application',
      handle: (_p, _q, b) => {
        sandbox.setOAuth2Application({
          clientSecret: optionalString(b.clientSecret, 'clientSecret'),
          redirectUris: stringList(b.redirectUris, 'redirectUris'),
        });
        return sandbox.oauth2Application();
      },
    },
    {
      method: 'POST',
      template: '/oauth2/authorizations',
      handle: async (_p, _q, b) => {
        const url = required(optionalString(b.url, 'url'), 'url');
        const location =
          b.decision === 'deny'
            ? await sandbox.denyAuthorization(url)
            : await sandbox.approveAuthorization(url, required(optionalString(b.userId, 'userId'), 'userId'));
        return { location };
      },
    },
    {
      method: 'POST',
      template: '/oauth2/tokens',
      handle: (_p, _q, b) =>
        sandbox.issueUserTokens(required(optionalString(b.userId, 'userId'), 'userId'), required(stringList(b.scopes, 'scopes'), 'scopes')),
    },
    { method: 'DELETE', template: '/oauth2/authorizations/:u', handle: (p) => sandbox.revokeUserAuthorization(p.u ?? '') },
    { method: 'PUT', template: '/members-intent', handle: (_p, _q, b) => sandbox.setMembersIntentEnabled(b.enabled === true) },
    { method: 'PUT', template: '/bot-public', handle: (_p, _q, b) => sandbox.setBotPublic(b.public === true) },
    { method: 'POST', template: '/rate-limits', handle: (_p, _q, b) => sandbox.setRateLimit(b as unknown as RateLimitSetting) },
    { method: 'POST', template: '/faults', handle: (_p, _q, b) => sandbox.injectFault(b as unknown as FaultSpec) },
    {
      method: 'GET',
      template: '/commands',
      handle: (_p, q) => {
        const guildId = q.get('guildId') ?? undefined;
        return { commands: sandbox.commands(guildId), puts: sandbox.commandPutCount(guildId) };
      },
    },
  ];
}

export async function handleControl(
  routes: readonly ControlRoute[],
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): Promise<ControlAnswer> {
  for (const route of routes) {
    const params = matchTemplate(route.template, path);
    if (!params || route.method !== method) continue;
    try {
      const input = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      const result: unknown = await route.handle(params, query, input);
      return result === undefined ? { status: 204 } : { status: 200, body: result };
    } catch (error) {
      if (error instanceof SandboxUsageError || error instanceof RangeError || error instanceof TypeError) {
        return { status: 400, body: { error: error.message } };
      }
      throw error;
    }
  }
  return { status: 404, body: { error: `no control route ${method} ${path}` } };
}
