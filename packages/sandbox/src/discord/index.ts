export { createDiscordSandbox } from './server';
export type { DiscordSandbox, DiscordSandboxOptions, WaitForMemberRoleOptions } from './server';
export type {
  AddMemberOptions,
  CreateChannelOptions,
  CreateGuildOptions,
  CreateRoleOptions,
  CreatedGuild,
  OverwriteInput,
  UpdateChannelOptions,
  UpdateRoleOptions,
} from './state';
export { ChannelType } from './state';
export { SandboxUsageError } from './state';
export type { GenerateGuildOptions, GeneratedGuild } from './generator';
export type { WaitForMessageOptions } from './messages';
export type { WaitForResponseOptions } from './interactions';
export { Permission } from './permissions';
export { CloseCode, Intent } from './gateway';
export type { GatewaySessionInfo } from './gateway';
export type { GatewaySettings, IdentifyRecord } from './gateway-sharding';
export { shardIdForGuild } from './snowflakes';
export type * from './types';
export type { OAuth2TokenPair } from './oauth2-store';
export { OAUTH2_SCOPES, pkceChallenge } from './oauth2-store';
export { SESSION_COOKIE, requestIdFromAuthorizePage } from './oauth2-routes';
export { DISCORD_RATE_LIMITS } from './rate-limiter';
