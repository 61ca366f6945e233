import type { Result } from './result';
import { err, ok } from './result';

/** Discord permission bits (Discord's docs, Permissions; docs/discord-api-notes.md §7). */
export const ADMINISTRATOR = 1n << 3n;
export const MANAGE_ROLES = 1n << 28n;

/** The fields of a Discord role the hierarchy rules read. */
export interface HierarchyRole {
  id: string;
  name: string;
  position: number;
  /** Permission bit set as Discord serialises it: a decimal string. */
  permissions: string;
  managed: boolean;
}

export type RoleProblemCode = 'everyone' | 'managed' | 'above_bot' | 'missing_manage_roles' | 'unknown_role';

/** Why the bot may not grant or remove a role, in words for the server's creator. */
export interface RoleProblem {
  code: RoleProblemCode;
  roleId: string;
  roleName: string;
  /** The bot's highest role's name, for a reader of another language (`missing_manage_roles`, `above_bot`). */
  botRoleName?: string;
  message: string;
  fix: string;
}

export interface RoleCheckInput {
  guildId: string;
  roles: readonly HierarchyRole[];
  /** Role ids of the bot's own member (without @everyone). */
  botRoleIds: readonly string[];
  roleId: string;
  /** The guild owner bypasses the hierarchy; bots almost never own a guild. */
  botIsOwner?: boolean;
}

/**
 * Orders roles as Discord does: by position, and on equal positions the older (smaller) id ranks
 * higher (discord.js `RoleManager.comparePositions`). Positive when `a` is above `b`.
 */
export function compareRolePositions(a: Pick<HierarchyRole, 'id' | 'position'>, b: Pick<HierarchyRole, 'id' | 'position'>): number {
  if (a.position !== b.position) return a.position - b.position;
  const ia = BigInt(a.id);
  const ib = BigInt(b.id);
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}

/** A member's highest role among `memberRoleIds`, or @everyone (its id is the guild id) when they hold no other; null when `roles` has neither. */
export function highestRoleOf(guildId: string, roles: readonly HierarchyRole[], memberRoleIds: readonly string[]): HierarchyRole | null {
  const mine = new Set([...memberRoleIds, guildId]);
  let highest: HierarchyRole | null = null;
  for (const role of roles) if (mine.has(role.id) && (!highest || compareRolePositions(role, highest) > 0)) highest = role;
  return highest;
}

/** The bot's highest role, or @everyone when it has none. */
export function botHighestRole(guildId: string, roles: readonly HierarchyRole[], botRoleIds: readonly string[]): HierarchyRole | undefined {
  const mine = new Set(botRoleIds);
  let best = roles.find((r) => r.id === guildId);
  for (const role of roles) {
    if (mine.has(role.id) && (!best || compareRolePositions(role, best) > 0)) best = role;
  }
  return best;
}

/** Create Instant Invite: what Add Guild Member needs of the bot (docs/discord-api-notes.md §2). */
export const CREATE_INSTANT_INVITE = 1n << 0n;

/**
 * The bot's guild-level permissions: @everyone's bits OR its roles' bits, every bit with
 * Administrator (Discord's docs, Permissions; docs/discord-api-notes.md §7).
 */
export function botGuildPermissions(guildId: string, roles: readonly HierarchyRole[], botRoleIds: readonly string[]): bigint {
  const mine = new Set([...botRoleIds, guildId]);
  let bits = 0n;
  for (const role of roles) if (mine.has(role.id)) bits |= BigInt(role.permissions);
  return (bits & ADMINISTRATOR) !== 0n ? (1n << 64n) - 1n : bits;
}

/** Manage Roles from @everyone or any of the bot's roles; Administrator implies it. */
export function botCanManageRoles(guildId: string, roles: readonly HierarchyRole[], botRoleIds: readonly string[]): boolean {
  return (botGuildPermissions(guildId, roles, botRoleIds) & MANAGE_ROLES) !== 0n;
}

/**
 * Decides, without asking Discord, whether the bot may add or remove a role: "A bot can grant roles
 * to other users that are of a lower position than its own highest role", never @everyone or a
 * managed role, and only with Manage Roles (docs/tech-facts.md §1 "Role hierarchy"). Checking
 * first matters: every 403 counts toward Discord's invalid-request limit.
 */
export function checkRoleAssignable(input: RoleCheckInput): Result<HierarchyRole, RoleProblem> {
  const { guildId, roles, botRoleIds, roleId } = input;
  const role = roles.find((r) => r.id === roleId);
  const highest = botHighestRole(guildId, roles, botRoleIds);
  const botRoleName = highest && highest.id !== guildId ? highest.name : 'Tierlink';
  if (!role) {
    return err({
      code: 'unknown_role',
      roleId,
      roleName: roleId,
      message: `The role ${roleId} no longer exists in this server.`,
      fix: 'Map the tier to an existing role (the old one was deleted).',
    });
  }
  if (role.id === guildId) {
    return err({
      code: 'everyone',
      roleId,
      roleName: role.name,
      message: '@everyone belongs to every member; it cannot be granted or taken away.',
      fix: 'Create a role for the tier and map the tier to it instead of @everyone.',
    });
  }
  if (role.managed) {
    return err({
      code: 'managed',
      roleId,
      roleName: role.name,
      message: `${role.name} is managed by an integration (a bot, a booster or a subscription role); nobody can assign it by hand.`,
      fix: `Create an ordinary role for the tier and map the tier to it instead of ${role.name}.`,
    });
  }
  if (!input.botIsOwner && !botCanManageRoles(guildId, roles, botRoleIds)) {
    return err({
      code: 'missing_manage_roles',
      roleId,
      roleName: role.name,
      botRoleName,
      message: `${botRoleName} lacks the Manage Roles permission, so it cannot grant ${role.name}.`,
      fix: `Turn on Manage Roles for the ${botRoleName} role in Server Settings → Roles → ${botRoleName} → Permissions.`,
    });
  }
  if (!input.botIsOwner && (!highest || compareRolePositions(highest, role) <= 0)) {
    return err({
      code: 'above_bot',
      roleId,
      roleName: role.name,
      botRoleName,
      message: `${role.name} is at or above ${botRoleName}, the bot's highest role, so Discord refuses to assign it.`,
      fix: `Move the ${botRoleName} role above ${role.name} in Server Settings → Roles.`,
    });
  }
  return ok(role);
}
