export { createDiscordSandbox } from './server';
export type { DiscordSandbox, DiscordSandboxOptions, WaitForMemberRoleOptions } from './server';
export type { AddMemberOptions, CreateGuildOptions, CreateRoleOptions, CreatedGuild, UpdateRoleOptions } from './state';
export { SandboxUsageError } from './state';
export type { GenerateGuildOptions, GeneratedGuild } from './generator';
export type { WaitForResponseOptions } from './interactions';
export { Permission } from './permissions';
export { CloseCode, Intent } from './gateway';
export type * from './types';
