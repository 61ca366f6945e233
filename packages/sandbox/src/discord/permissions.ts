/**
 * Permission bits and role ordering as Discord computes them (Discord's docs, Permissions; docs/discord-api-notes.md §7; the
 * ordering tie-break copies discord.js `RoleManager.comparePositions`, docs/tech-facts.md §1).
 */
export const Permission = {
  CreateInstantInvite: 1n << 0n,
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  SendTtsMessages: 1n << 12n,
  EmbedLinks: 1n << 14n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  MuteMembers: 1n << 22n,
  DeafenMembers: 1n << 23n,
  ManageNicknames: 1n << 27n,
  ManageRoles: 1n << 28n,
} as const;

/** Every permission bit Discord defines today (up to bit 50), granted to owners and administrators. */
export const ALL_PERMISSIONS = (1n << 51n) - 1n;

export interface PositionedRole {
  id: string;
  position: number;
}

/**
 * Compares two roles by position; equal positions fall back to the id, where the older (smaller)
 * id ranks higher. Positive when `a` is above `b`.
 */
export function compareRolePositions(a: PositionedRole, b: PositionedRole): number {
  if (a.position !== b.position) return a.position - b.position;
  const ia = BigInt(a.id);
  const ib = BigInt(b.id);
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}

/** The highest of `roles`, or undefined for none. */
export function highestRole<R extends PositionedRole>(roles: readonly R[]): R | undefined {
  let best: R | undefined;
  for (const role of roles) {
    if (!best || compareRolePositions(role, best) > 0) best = role;
  }
  return best;
}

/** Guild-level permissions: @everyone's bits OR the member's roles' bits; Administrator means all. */
export function basePermissions(everyone: bigint, memberRoles: readonly bigint[]): bigint {
  let bits = everyone;
  for (const role of memberRoles) bits |= role;
  return (bits & Permission.Administrator) === Permission.Administrator ? ALL_PERMISSIONS : bits;
}

export function hasPermission(bits: bigint, flag: bigint): boolean {
  return (bits & flag) === flag;
}

/** A channel permission overwrite: type 0 for a role (the guild id for @everyone), 1 for a member. */
export interface PermissionOverwrite {
  id: string;
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

/**
 * Channel-level permissions from guild-level ones, in the docs' order: Administrator (and so the
 * owner) keeps everything; then the @everyone overwrite, all role overwrites together, the member's
 * own overwrite, each deny before allow (docs/discord-api-notes.md §7 "Computing permissions").
 */
export function applyOverwrites(
  base: bigint,
  overwrites: readonly PermissionOverwrite[],
  everyoneId: string,
  memberRoleIds: readonly string[],
  userId: string,
): bigint {
  if (hasPermission(base, Permission.Administrator)) return ALL_PERMISSIONS;
  let bits = base;
  const everyone = overwrites.find((o) => o.type === 0 && o.id === everyoneId);
  if (everyone) bits = (bits & ~everyone.deny) | everyone.allow;
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (o.type === 0 && o.id !== everyoneId && memberRoleIds.includes(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  bits = (bits & ~deny) | allow;
  const own = overwrites.find((o) => o.type === 1 && o.id === userId);
  if (own) bits = (bits & ~own.deny) | own.allow;
  return bits;
}
