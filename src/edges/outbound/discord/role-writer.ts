import type { REST } from '@discordjs/rest';
import type { Clock } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { Result } from '../../../core/result';
import { err, ok } from '../../../core/result';
import type { DiscordProblemCode } from './discord-problem';
import { DiscordErrorCode, DiscordProblemError, discordErrorCode, explainDiscordError } from './discord-problem';
import type { GuildDirectory } from './guild-directory';
import { type GuildSnapshotCache, createGuildSnapshotCache } from './guild-snapshot-cache';
import type { MemberRoleCache } from './member-roles';
import { type Lane, budgetKeyOf } from './request-budget';
import type { RequestScheduler } from './request-scheduler';
import type { RoleProblemCode } from '../../../core/role-hierarchy';
import { checkRoleAssignable } from '../../../core/role-hierarchy';

export type RoleWriteProblemCode = RoleProblemCode | Exclude<DiscordProblemCode, 'members_intent_disabled'>;

/** A role change that did not happen, explained. */
export interface RoleWriteProblem {
  code: RoleWriteProblemCode;
  guildId: string;
  userId: string;
  roleId: string;
  roleName: string | null;
  message: string;
  fix: string;
  /** False when the hierarchy check refused before any PUT/DELETE was sent. */
  requestSent: boolean;
  /** Discord's JSON error code when Discord answered. */
  discordCode?: number;
}

/** How a role change is sent: `lane` says whether it is interactive (the default) or bulk work (docs/decisions.md §19). */
export interface RoleWriteOptions {
  lane?: Lane;
}

/** Adds and removes single roles. A port: other modules' tests can substitute it. */
export interface RoleWriter {
  addRole(
    guildId: string,
    userId: string,
    roleId: string,
    reason: string,
    options?: RoleWriteOptions,
  ): Promise<Result<void, RoleWriteProblem>>;
  removeRole(
    guildId: string,
    userId: string,
    roleId: string,
    reason: string,
    options?: RoleWriteOptions,
  ): Promise<Result<void, RoleWriteProblem>>;
}

export interface RoleWriterOptions {
  rest: REST;
  directory: GuildDirectory;
  clock: Clock;
  logger?: Logger;
  /** How long a guild's roles and the bot's member are trusted; 60 s when absent. */
  cacheTtlMs?: number;
  /** A cache shared with the reconciler; one of its own when absent. */
  cache?: GuildSnapshotCache;
  /** Sends each change when its guild's member-role bucket has room for its lane; at once when absent. */
  scheduler?: Pick<RequestScheduler, 'run'>;
  /** Told of every accepted change, and of a member Discord does not know. */
  memberRoles?: Pick<MemberRoleCache, 'roleChanged' | 'notAMember'>;
}

/** "supports 1-512 URL-encoded UTF-8 characters" (Discord's docs, Audit Log; docs/tech-facts.md §1). */
export const MAX_AUDIT_REASON = 512;

export function truncateReason(reason: string): string {
  const chars = [...reason];
  return chars.length <= MAX_AUDIT_REASON ? reason : `${chars.slice(0, MAX_AUDIT_REASON - 1).join('')}…`;
}

/**
 * Role changes through `PUT`/`DELETE /guilds/{g}/members/{u}/roles/{r}`: one role per request, never
 * a PATCH of the member's whole list, which is built from a cache and can drop roles others granted
 * (docs/tech-facts.md §1). Each change is checked against the role hierarchy first, from a
 * short-lived per-guild cache, so a change Discord would refuse costs no request: every 403 counts
 * toward Discord's invalid-request limit. Each request waits its turn in its guild's member-role
 * bucket, interactive changes first (src/edges/outbound/discord/request-scheduler.ts).
 */
export function createRoleWriter(options: RoleWriterOptions): RoleWriter & { invalidate(guildId?: string): void } {
  const { rest, directory, clock } = options;
  const cache =
    options.cache ??
    createGuildSnapshotCache({ directory, clock, ...(options.cacheTtlMs !== undefined ? { ttlMs: options.cacheTtlMs } : {}) });
  const invalidate = (guildId?: string) => cache.invalidate(guildId);

  async function change(
    op: 'add' | 'remove',
    guildId: string,
    userId: string,
    roleId: string,
    reason: string,
    lane: Lane,
  ): Promise<Result<void, RoleWriteProblem>> {
    const base = { guildId, userId, roleId };
    let check: ReturnType<typeof checkRoleAssignable>;
    try {
      const context = await cache.getWithRole(guildId, roleId);
      check = checkRoleAssignable({ guildId, roles: context.roles, botRoleIds: context.botRoleIds, roleId });
    } catch (error) {
      if (error instanceof DiscordProblemError && error.problem.code !== 'members_intent_disabled') {
        const { code, message, fix, discordCode } = error.problem;
        return err({ ...base, code, roleName: null, message, fix, requestSent: false, discordCode });
      }
      throw error;
    }
    if (!check.ok) {
      const { code, roleName, message, fix } = check.error;
      options.logger?.info({ guildId, userId, roleId, code }, 'role change refused before sending');
      return err({ ...base, code, roleName, message, fix, requestSent: false });
    }
    const roleName = check.value.name;
    const route = `/guilds/${guildId}/members/${userId}/roles/${roleId}` as const;
    const method = op === 'add' ? 'PUT' : 'DELETE';
    try {
      const requestOptions = { reason: truncateReason(reason) };
      const send = () => (op === 'add' ? rest.put(route, requestOptions) : rest.delete(route, requestOptions));
      if (options.scheduler) await options.scheduler.run(budgetKeyOf(method, route)!, lane, send);
      else await send();
      options.memberRoles?.roleChanged(guildId, userId, roleId, op);
      return ok(undefined);
    } catch (error) {
      const problem = explainDiscordError(error);
      if (!problem || problem.code === 'members_intent_disabled') throw error;
      const code = discordErrorCode(error);
      if (code === DiscordErrorCode.UnknownMember) options.memberRoles?.notAMember(guildId, userId);
      if (code === DiscordErrorCode.MissingPermissions || code === DiscordErrorCode.UnknownRole || code === DiscordErrorCode.UnknownGuild) {
        invalidate(guildId);
      }
      options.logger?.warn({ guildId, userId, roleId, code: problem.code }, 'discord refused a role change');
      return err({
        ...base,
        code: problem.code,
        roleName,
        message: problem.message,
        fix: problem.fix,
        requestSent: true,
        discordCode: problem.discordCode,
      });
    }
  }

  return {
    addRole: (guildId, userId, roleId, reason, writeOptions) =>
      change('add', guildId, userId, roleId, reason, writeOptions?.lane ?? 'interactive'),
    removeRole: (guildId, userId, roleId, reason, writeOptions) =>
      change('remove', guildId, userId, roleId, reason, writeOptions?.lane ?? 'interactive'),
    invalidate,
  };
}
