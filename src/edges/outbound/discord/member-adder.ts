import { DiscordAPIError, type REST, RequestMethod } from '@discordjs/rest';
import type { Result } from '../../../core/result';
import { err, ok } from '../../../core/result';
import { CREATE_INSTANT_INVITE, botGuildPermissions, checkRoleAssignable } from '../../../core/role-hierarchy';
import type { Logger } from '../../../shared/logger';
import { DiscordProblemError } from './discord-problem';
import type { GuildDirectory } from './guild-directory';
import type { GuildSnapshotCache } from './guild-snapshot-cache';
import type { RoleWriteProblem } from './role-writer';

/** Why Discord did not add someone to a server, for the page they see. */
export type MemberAddProblemCode =
  /** 40007: banned from the server. */
  | 'banned'
  /** 30019: the server is at its member cap. */
  | 'server_full'
  /** 50013, or found before asking: the bot lacks Create Instant Invite (or Manage Roles for the roles). */
  | 'bot_lacks_permissions'
  /** 50025: the person's token is not valid for this (expired, revoked, without `guilds.join`). */
  | 'token_refused'
  /** 30001: the person is in as many servers as Discord allows. */
  | 'too_many_servers'
  /** 340015: Discord limited this person's joining of new servers. */
  | 'joining_limited'
  /** 10004 / 50001: the bot is not in the server (any more). */
  | 'bot_not_in_server'
  /** Anything else: Discord did not answer, or answered something unexpected. */
  | 'unavailable';

export interface MemberAddProblem {
  code: MemberAddProblemCode;
  /** For the log and the audit row: never the token. */
  message: string;
  /** Discord's JSON error code, when Discord answered one. */
  discordCode: number | null;
  /** False when Tierlink refused before asking Discord. */
  requestSent: boolean;
}

export interface MemberAdded {
  /**
   * 201: added now, with the roles sent; 204: already a member, nothing applied
   * (docs/discord-api-notes.md §2); `pending`: added (201) with no role to a server whose
   * Membership Screening is on, where roles sent with the join would let them skip its rules.
   */
  status: 'added' | 'already_member' | 'pending';
  /** Roles left out of the request: the hierarchy check refused them before sending. */
  skipped: RoleWriteProblem[];
}

/** Adds a person to a server with their roles, using the access token they just gave (`guilds.join`). A port. */
export interface MemberAdder {
  addMember(
    guildId: string,
    userId: string,
    userAccessToken: string,
    roleIds: readonly string[],
  ): Promise<Result<MemberAdded, MemberAddProblem>>;
}

const CODES: Readonly<Record<number, { code: MemberAddProblemCode; message: string }>> = {
  40007: { code: 'banned', message: 'the user is banned from this server' },
  30019: { code: 'server_full', message: 'the server has reached its maximum number of members' },
  50013: { code: 'bot_lacks_permissions', message: 'the bot lacks Create Instant Invite, or Manage Roles for a role sent' },
  50025: { code: 'token_refused', message: 'Discord refused the user’s access token' },
  30001: { code: 'too_many_servers', message: 'the user is in the maximum number of servers' },
  340015: { code: 'joining_limited', message: 'Discord has limited this user’s joining of new servers' },
  10004: { code: 'bot_not_in_server', message: 'Discord does not know this server (or the bot was removed from it)' },
  50001: { code: 'bot_not_in_server', message: 'Discord denied the bot access to this server' },
};

/**
 * Add Guild Member, `PUT /guilds/{g}/members/{u}` with the bot's token and the person's access token
 * in the body (docs/discord-api-notes.md §2), through the bot's REST client (its rate limits).
 *
 * The access token is a secret of the person joining: it goes into this one request body and
 * nowhere else. @discordjs/rest keeps a request's body on the errors it throws, so an error of this
 * request is read for its code here and never passed on or logged.
 *
 * In a server whose Membership Screening is on (read from the guild before asking), the person is
 * added with no role and the answer is `pending`: Discord lets a member given a role skip the
 * screening, so their roles wait until they accept the server's rules.
 *
 * Before asking, the cached guild snapshot says whether the bot has Create Instant Invite (and
 * Manage Roles when roles are sent), and each role is checked against the hierarchy: a role the
 * bot cannot assign would fail the whole join, so it is left out and reported (`skipped`). Each
 * refusal Discord would answer counts toward its invalid-request limit.
 */
export function createMemberAdder(options: {
  rest: REST;
  cache: GuildSnapshotCache;
  directory: Pick<GuildDirectory, 'getGuild'>;
  logger?: Logger;
}): MemberAdder {
  const { rest, cache } = options;

  return {
    async addMember(guildId, userId, userAccessToken, roleIds) {
      let snapshot;
      let screening: boolean;
      try {
        [snapshot, { screening }] = await Promise.all([cache.get(guildId), options.directory.getGuild(guildId)]);
      } catch (error) {
        if (error instanceof DiscordProblemError) {
          return err({ code: 'bot_not_in_server', message: error.problem.message, discordCode: error.discordCode, requestSent: false });
        }
        return err({ code: 'unavailable', message: 'the server and its roles could not be read', discordCode: null, requestSent: false });
      }
      const bits = botGuildPermissions(guildId, snapshot.roles, snapshot.botRoleIds);
      if ((bits & CREATE_INSTANT_INVITE) === 0n) {
        return err({
          code: 'bot_lacks_permissions',
          message: 'the bot lacks Create Instant Invite',
          discordCode: null,
          requestSent: false,
        });
      }
      const skipped: RoleWriteProblem[] = [];
      const sent: string[] = [];
      // Behind Membership Screening a joiner is `pending`; roles now would let them skip the rules.
      if (!screening)
        for (const roleId of roleIds) {
          const check = checkRoleAssignable({ guildId, roles: snapshot.roles, botRoleIds: snapshot.botRoleIds, roleId });
          if (check.ok) {
            sent.push(roleId);
            continue;
          }
          const { code, roleName, message, fix } = check.error;
          skipped.push({ guildId, userId, roleId, code, roleName, message, fix, requestSent: false });
        }
      try {
        const response = await rest.queueRequest({
          fullRoute: `/guilds/${guildId}/members/${userId}`,
          method: RequestMethod.Put,
          body: { access_token: userAccessToken, roles: sent },
        });
        // Read to the end, so the connection is free again (201 carries the member; 204 nothing).
        await response.arrayBuffer().catch(() => undefined);
        return ok({ status: response.status !== 201 ? 'already_member' : screening ? 'pending' : 'added', skipped });
      } catch (error) {
        const problem = explain(error);
        if (problem.code === 'bot_lacks_permissions' || problem.code === 'bot_not_in_server') cache.invalidate(guildId);
        options.logger?.warn(
          { guildId, userId, code: problem.code, discordCode: problem.discordCode, roles: sent.length },
          'discord did not add a member',
        );
        return err(problem);
      }
    },
  };
}

/** Discord's answer in words, from its code alone (the error object carries the request body). */
function explain(error: unknown): MemberAddProblem {
  if (error instanceof DiscordAPIError && typeof error.code === 'number') {
    const known = CODES[error.code];
    if (known) return { ...known, discordCode: error.code, requestSent: true };
    return {
      code: 'unavailable',
      message: `Discord answered ${error.status} (code ${error.code})`,
      discordCode: error.code,
      requestSent: true,
    };
  }
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : null;
  return {
    code: 'unavailable',
    message: status ? `Discord answered ${status}` : 'Discord did not answer',
    discordCode: null,
    requestSent: true,
  };
}
