export { createRest } from './create-rest';
export type { CreateRestOptions, RestCallEvent, RestHandle, RestRateLimitEvent, RestStats } from './create-rest';
export { createGuildDirectory, MAX_MEMBER_PAGE } from './guild-directory';
export type { GuildDirectory, GuildDirectoryOptions, GuildMemberInfo, GuildRole, ListMembersOptions } from './guild-directory';
export { createRoleWriter, truncateReason, MAX_AUDIT_REASON } from './role-writer';
export type { RoleWriteProblem, RoleWriteProblemCode, RoleWriter, RoleWriterOptions } from './role-writer';
export {
  ADMINISTRATOR,
  MANAGE_ROLES,
  botCanManageRoles,
  botHighestRole,
  checkRoleAssignable,
  compareRolePositions,
} from './role-hierarchy';
export type { HierarchyRole, RoleCheckInput, RoleProblem, RoleProblemCode } from './role-hierarchy';
export { DiscordErrorCode, DiscordProblemError, explainDiscordError } from './discord-problem';
export type { DiscordProblem, DiscordProblemCode } from './discord-problem';
export { createGuildSnapshotCache } from './guild-snapshot-cache';
export type { GuildSnapshot, GuildSnapshotCache } from './guild-snapshot-cache';
