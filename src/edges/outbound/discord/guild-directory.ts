import type { REST } from '@discordjs/rest';
import { DiscordErrorCode, DiscordProblemError, discordErrorCode, explainDiscordError, membersIntentProblem } from './discord-problem';
import type { HierarchyRole } from '../../../core/role-hierarchy';

/** A role as Tierlink reads it from `GET /guilds/{g}/roles`. */
export interface GuildRole extends HierarchyRole {
  color: number;
  hoist: boolean;
  mentionable: boolean;
  /** Set when the role is a bot's own managed role. */
  botId: string | null;
}

/** A member as Tierlink reads it from the member endpoints. */
export interface GuildMemberInfo {
  userId: string;
  username: string;
  globalName: string | null;
  /** The member's nickname in this guild, when set. */
  nick?: string | null;
  bot: boolean;
  roleIds: string[];
  joinedAt: string | null;
  /**
   * In the server but not yet through its Membership Screening (its rules): Tierlink gives such a
   * member nothing until Discord says they passed, since a role given now lets them skip the
   * screening (docs/discord-api-notes.md §2). Absent means false.
   */
  pending?: boolean;
}

/** A guild as Tierlink reads it from `GET /guilds/{g}`: who owns it decides who may do anything. */
export interface GuildInfo {
  id: string;
  name: string;
  ownerId: string;
  /** Membership Screening is on (`features` lists `MEMBER_VERIFICATION_GATE_ENABLED`): joiners are `pending`. */
  screening: boolean;
}

/** A Discord account as `GET /users/{u}` shows it. */
export interface DiscordUserInfo {
  userId: string;
  username: string;
  globalName: string | null;
}

export interface ListMembersOptions {
  /** 1..1000; 1000 (Discord's maximum) when absent. */
  pageSize?: number;
  /** Start after this user id; from the beginning when absent. */
  after?: string;
}

/** What Tierlink reads about a guild. A port: other modules' tests can substitute it. */
export interface GuildDirectory {
  botUserId(): Promise<string>;
  listRoles(guildId: string): Promise<GuildRole[]>;
  /** The guild's name and owner; a DiscordProblemError `missing_access` when the bot is not in it. */
  getGuild(guildId: string): Promise<GuildInfo>;
  /** null when Discord knows no such user (10013). */
  getUser(userId: string): Promise<DiscordUserInfo | null>;
  /** The bot's own member; a DiscordProblemError `missing_access` when the bot is not in the guild. */
  getBotMember(guildId: string): Promise<GuildMemberInfo>;
  /** null when the user is not a member (10007). */
  getMember(guildId: string, userId: string): Promise<GuildMemberInfo | null>;
  /** Up to `limit` (1..1000) members whose username or server nickname starts with `query`. */
  searchMembers(guildId: string, query: string, limit: number): Promise<GuildMemberInfo[]>;
  /** Pages of members in ascending user-id order; needs the Server Members Intent. */
  listMembers(guildId: string, options?: ListMembersOptions): AsyncIterable<GuildMemberInfo[]>;
}

interface RawRole {
  id: string;
  name: string;
  color?: number;
  hoist?: boolean;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable?: boolean;
  tags?: { bot_id?: string };
}

interface RawGuild {
  id: string;
  name: string;
  owner_id: string;
  features?: string[];
}

interface RawUser {
  id: string;
  username: string;
  global_name?: string | null;
}

interface RawMember {
  user?: { id: string; username: string; global_name?: string | null; bot?: boolean };
  nick?: string | null;
  roles: string[];
  joined_at?: string | null;
  pending?: boolean;
}

export const MAX_MEMBER_PAGE = 1000;

function toRole(raw: RawRole): GuildRole {
  return {
    id: raw.id,
    name: raw.name,
    position: raw.position,
    permissions: raw.permissions,
    managed: raw.managed,
    color: raw.color ?? 0,
    hoist: raw.hoist ?? false,
    mentionable: raw.mentionable ?? false,
    botId: raw.tags?.bot_id ?? null,
  };
}

function toMember(raw: RawMember): GuildMemberInfo {
  if (!raw.user) throw new Error('Discord returned a member without its user');
  return {
    userId: raw.user.id,
    username: raw.user.username,
    globalName: raw.user.global_name ?? null,
    nick: raw.nick ?? null,
    bot: raw.user.bot ?? false,
    roleIds: [...raw.roles],
    joinedAt: raw.joined_at ?? null,
    pending: raw.pending === true,
  };
}

function rethrow(error: unknown): never {
  const problem = explainDiscordError(error);
  if (problem) throw new DiscordProblemError(problem);
  throw error;
}

export interface GuildDirectoryOptions {
  rest: REST;
  /** The bot's user id when known (saves one `GET /users/@me`). */
  botUserId?: string;
}

/** The directory over Discord REST (docs/tech-facts.md §1 for the endpoints and their limits). */
export function createGuildDirectory(options: GuildDirectoryOptions): GuildDirectory {
  const { rest } = options;
  let botId: Promise<string> | undefined = options.botUserId ? Promise.resolve(options.botUserId) : undefined;

  const directory: GuildDirectory = {
    botUserId() {
      botId ??= (rest.get('/users/@me') as Promise<{ id: string }>).then((user) => user.id);
      return botId.catch((error: unknown) => {
        botId = undefined;
        return rethrow(error);
      });
    },

    async listRoles(guildId) {
      try {
        const roles = (await rest.get(`/guilds/${guildId}/roles`)) as RawRole[];
        return roles.map(toRole);
      } catch (error) {
        return rethrow(error);
      }
    },

    async getGuild(guildId) {
      try {
        const raw = (await rest.get(`/guilds/${guildId}`)) as RawGuild;
        const screening = Array.isArray(raw.features) && raw.features.includes('MEMBER_VERIFICATION_GATE_ENABLED');
        return { id: raw.id, name: raw.name, ownerId: raw.owner_id, screening };
      } catch (error) {
        return rethrow(error);
      }
    },

    async getUser(userId) {
      try {
        const raw = (await rest.get(`/users/${userId}`)) as RawUser;
        return { userId: raw.id, username: raw.username, globalName: raw.global_name ?? null };
      } catch (error) {
        if (discordErrorCode(error) === DiscordErrorCode.UnknownUser) return null;
        return rethrow(error);
      }
    },

    async getBotMember(guildId) {
      const userId = await directory.botUserId();
      try {
        return toMember((await rest.get(`/guilds/${guildId}/members/${userId}`)) as RawMember);
      } catch (error) {
        if (discordErrorCode(error) === DiscordErrorCode.UnknownMember) {
          throw new DiscordProblemError({
            code: 'missing_access',
            message: 'The bot is not a member of this server.',
            fix: 'Invite the bot to the server again.',
            discordCode: DiscordErrorCode.UnknownMember,
            status: 404,
          });
        }
        return rethrow(error);
      }
    },

    async getMember(guildId, userId) {
      try {
        return toMember((await rest.get(`/guilds/${guildId}/members/${userId}`)) as RawMember);
      } catch (error) {
        if (discordErrorCode(error) === DiscordErrorCode.UnknownMember) return null;
        return rethrow(error);
      }
    },

    /** `GET /guilds/{g}/members/search?query=&limit=` (Discord's docs, Search Guild Members). */
    async searchMembers(guildId, query, limit) {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMBER_PAGE) {
        throw new RangeError(`limit must be an integer in 1..${MAX_MEMBER_PAGE}`);
      }
      try {
        const raw = (await rest.get(`/guilds/${guildId}/members/search`, {
          query: new URLSearchParams({ query, limit: String(limit) }),
        })) as RawMember[];
        return raw.map(toMember);
      } catch (error) {
        return rethrow(error);
      }
    },

    /**
     * `GET /guilds/{g}/members?limit=&after=`, `after` being the highest user id of the previous page;
     * a page shorter than `pageSize` is the last. A 50001 here means the privileged Server Members
     * Intent is off (Discord's docs, List Guild Members; docs/tech-facts.md §1).
     */
    async *listMembers(guildId, listOptions = {}) {
      const pageSize = listOptions.pageSize ?? MAX_MEMBER_PAGE;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_MEMBER_PAGE) {
        throw new RangeError(`pageSize must be an integer in 1..${MAX_MEMBER_PAGE}`);
      }
      let after = listOptions.after ?? '0';
      for (;;) {
        let raw: RawMember[];
        try {
          const query = new URLSearchParams({ limit: String(pageSize), after });
          raw = (await rest.get(`/guilds/${guildId}/members`, { query })) as RawMember[];
        } catch (error) {
          if (discordErrorCode(error) === DiscordErrorCode.MissingAccess) {
            throw new DiscordProblemError(membersIntentProblem((error as { status: number }).status));
          }
          return rethrow(error);
        }
        const page = raw.map(toMember);
        if (page.length > 0) yield page;
        if (page.length < pageSize) return;
        after = highestId(page.map((m) => m.userId));
      }
    },
  };
  return directory;
}

function highestId(ids: readonly string[]): string {
  return ids.reduce((best, id) => (id.length > best.length || (id.length === best.length && id > best) ? id : best), '0');
}
