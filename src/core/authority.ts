import type { Result } from './result';
import { err, ok } from './result';
import { ADMINISTRATOR, type HierarchyRole, MANAGE_ROLES, compareRolePositions, highestRoleOf } from './role-hierarchy';

/** Discord permission bits (Discord's docs, Permissions; docs/discord-api-notes.md §7) that Tierlink's authority rules name. */
export const Permission = {
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: ADMINISTRATOR,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  MentionEveryone: 1n << 17n,
  ManageRoles: MANAGE_ROLES,
  ManageWebhooks: 1n << 29n,
  ModerateMembers: 1n << 40n,
} as const;

/**
 * Permissions that give power over other members or the server. A role carrying one of them is
 * handed out (or taken away, or made a former-patron or follower role) through Tierlink only by the
 * server's owner or an Administrator: every patron of a tier would get that power, including the
 * person who mapped it. Strict mode never removes such a role (docs/decisions.md §2).
 */
export const DANGEROUS_PERMISSIONS: ReadonlyArray<{ bit: bigint; name: string }> = [
  { bit: Permission.Administrator, name: 'Administrator' },
  { bit: Permission.ManageGuild, name: 'Manage Server' },
  { bit: Permission.ManageRoles, name: 'Manage Roles' },
  { bit: Permission.ManageChannels, name: 'Manage Channels' },
  { bit: Permission.KickMembers, name: 'Kick Members' },
  { bit: Permission.BanMembers, name: 'Ban Members' },
  { bit: Permission.ManageWebhooks, name: 'Manage Webhooks' },
  { bit: Permission.ModerateMembers, name: 'Moderate Members' },
  { bit: Permission.MentionEveryone, name: 'Mention @everyone, @here, and All Roles' },
];

/** Every permission bit, as Discord grants them to an owner or an Administrator. */
const ALL = (1n << 64n) - 1n;

/** The names of the dangerous permissions a role carries (its own bits, as Discord serialises them). */
export function dangerousPermissionsOf(permissions: string): string[] {
  return permissionNames(dangerousBitsOf(permissions));
}

/** The dangerous permission bits among a role's own (as Discord serialises them). */
export function dangerousBitsOf(permissions: string): bigint {
  const bits = BigInt(permissions);
  let out = 0n;
  for (const p of DANGEROUS_PERMISSIONS) if ((bits & p.bit) !== 0n) out |= p.bit;
  return out;
}

/** The names of the dangerous permissions among `bits`, in {@link DANGEROUS_PERMISSIONS}' order. */
export function permissionNames(bits: bigint): string[] {
  return DANGEROUS_PERMISSIONS.filter((p) => (bits & p.bit) !== 0n).map((p) => p.name);
}

/** A role Tierlink holds back: its dangerous permissions that nobody with the authority allowed. */
export interface HeldBack {
  message: string;
  fix: string;
  /** The dangerous permissions not allowed. */
  permissions: string[];
  /** The role was allowed, and gained these permissions since. */
  gained: boolean;
}

/** Names in a sentence: "A", "A and B", "A, B and C". */
export const listed = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * Whether Tierlink holds a role back rather than grant it: a role with dangerous permissions is
 * granted only once the server's owner or an administrator allowed it by name (`allowed`: the
 * dangerous bits they allowed for it, `/allow-role`), and only while it has no dangerous permission
 * beyond those. Every patron of a tier gets its roles, the person who set the tier's role on the
 * service or with `/map` included, so a tier must never be a way to hand out powers that Discord
 * would let only an administrator give (docs/sign-in-and-role-authority.md). Null when the role
 * may be granted.
 */
export function heldBack(role: Pick<HierarchyRole, 'name' | 'permissions'>, allowed: bigint | undefined): HeldBack | null {
  const bits = dangerousBitsOf(role.permissions);
  const missing = bits & ~(allowed ?? 0n);
  if (missing === 0n) return null;
  const permissions = permissionNames(missing);
  const those = permissions.length === 1 ? 'the permission' : 'those permissions';
  const s = permissions.length === 1 ? '' : 's';
  const gained = allowed !== undefined;
  return {
    message: gained
      ? `${role.name} is held back: it gained the ${listed(permissions)} permission${s} since the server owner or an administrator allowed it, so Tierlink no longer gives it.`
      : `${role.name} is held back: it has the ${listed(permissions)} permission${s}, and the server owner or an administrator has not allowed Tierlink to give it.`,
    fix: `The server owner or an administrator can allow it with /allow-role role:@${role.name}, or remove ${those} from ${role.name}.`,
    permissions,
    gained,
  };
}

/** What the rules read about the person asking: the guild's roles and owner, and the member's roles. */
export interface ActorFacts {
  guildId: string;
  userId: string;
  ownerId: string;
  /** The member's role ids (without @everyone), as Discord lists them for the member. */
  memberRoleIds: readonly string[];
  /** Every role of the guild, @everyone included (its id is the guild id). */
  roles: readonly HierarchyRole[];
}

/** The invoker's standing in the guild, from guild-level permissions only. */
export interface Authority {
  guildId: string;
  userId: string;
  isOwner: boolean;
  isAdministrator: boolean;
  /** Guild-level permissions: @everyone and the member's roles; every bit for the owner or an Administrator. */
  permissions: bigint;
  /** The member's highest role, or @everyone when they have none. */
  highest: HierarchyRole | null;
}

/**
 * Guild-level permissions as Discord computes them before channel overwrites (Discord's docs,
 * Permissions, "Permission Hierarchy"; docs/discord-api-notes.md §7): the owner has everything; otherwise @everyone's
 * bits OR the member's roles' bits, and Administrator means everything. Channel overwrites (what an
 * interaction's `member.permissions` and `app_permissions` carry) are never read: a "Manage
 * Permissions" overwrite on one channel sets the Manage Roles bit there and grants nothing here.
 */
export function authorityOf(facts: ActorFacts): Authority {
  const mine = new Set([...facts.memberRoleIds, facts.guildId]);
  let bits = 0n;
  for (const role of facts.roles) if (mine.has(role.id)) bits |= BigInt(role.permissions);
  const highest = highestRoleOf(facts.guildId, facts.roles, facts.memberRoleIds);
  const isOwner = facts.userId === facts.ownerId;
  const isAdministrator = (bits & ADMINISTRATOR) !== 0n;
  return {
    guildId: facts.guildId,
    userId: facts.userId,
    isOwner,
    isAdministrator,
    permissions: isOwner || isAdministrator ? ALL : bits,
    highest,
  };
}

export function hasPermission(authority: Authority, bit: bigint): boolean {
  return (authority.permissions & bit) === bit;
}

export type AuthorityRefusalCode = 'missing_permission' | 'at_or_above' | 'dangerous';

/** Why a person may not have Tierlink manage a role for them, in words for that person. */
export interface AuthorityRefusal {
  code: AuthorityRefusalCode;
  roleId: string;
  roleName: string;
  /** `at_or_above`: the person's highest role's name (null: they have none); for a reader of another language. */
  highestName?: string | null;
  /** `dangerous`: the role's dangerous permissions, by their English names (`perm.*` in the catalogues). */
  permissions?: string[];
  message: string;
  fix: string;
}

/**
 * Whether `authority` may make Tierlink grant and remove `role` (map it, unmap it, make it the
 * former-patron or follower role, let strict mode remove it). Discord lets a member with Manage
 * Roles manage only roles below their own highest role; Tierlink keeps that rule, so the bot is
 * never a way round it. Only the owner passes the hierarchy: Discord does not let Administrator
 * bypass it (an Administrator cannot give a role at or above their own highest role in Discord
 * either; docs/discord-api-notes.md §7). Roles with dangerous permissions need the owner or an
 * Administrator.
 */
export function checkRoleAuthority(authority: Authority, role: HierarchyRole): Result<HierarchyRole, AuthorityRefusal> {
  const refuse = (code: AuthorityRefusalCode, message: string, fix: string) =>
    err<AuthorityRefusal>({ code, roleId: role.id, roleName: role.name, message, fix });
  if (!hasPermission(authority, Permission.ManageRoles)) {
    return refuse(
      'missing_permission',
      `You need the Manage Roles permission in this server to have Tierlink manage ${role.name}.`,
      'Ask the server owner or an administrator, or for a role with Manage Roles.',
    );
  }
  if (!authority.isOwner && (!authority.highest || compareRolePositions(authority.highest, role) <= 0)) {
    const where =
      authority.highest && authority.highest.id !== authority.guildId
        ? `at or above your highest role, ${authority.highest.name}`
        : 'above you: you have no role in this server';
    const refusal = refuse(
      'at_or_above',
      `${role.name} is ${where}. Discord lets you give or take away only roles below your own highest role, and Tierlink ` +
        `keeps the same rule.`,
      `Ask someone whose highest role is above ${role.name}, or the server owner, to do this.`,
    );
    if (!refusal.ok)
      refusal.error.highestName = authority.highest && authority.highest.id !== authority.guildId ? authority.highest.name : null;
    return refusal;
  }
  if (authority.isOwner || authority.isAdministrator) return ok(role);
  const dangerous = dangerousPermissionsOf(role.permissions);
  if (dangerous.length > 0) {
    const those = dangerous.length === 1 ? 'that permission' : 'those permissions';
    const refusal = refuse(
      'dangerous',
      `${role.name} has the ${dangerous.join(', ')} permission${dangerous.length === 1 ? '' : 's'}. Only the server owner or an administrator can have Tierlink give or take ` +
        `away a role with that kind of power: everyone Tierlink gives it to would have it.`,
      `Ask the server owner or someone with Administrator to do this, or remove ${those} from ${role.name} first.`,
    );
    if (!refusal.ok) refusal.error.permissions = dangerous;
    return refusal;
  }
  return ok(role);
}
