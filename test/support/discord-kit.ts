import { createDiscordAccess } from '../../src/edges/outbound/discord';
import type { GuildDirectory } from '../../src/edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../src/edges/outbound/discord/guild-snapshot-cache';
import type { MemberRoleCache } from '../../src/edges/outbound/discord/member-roles';
import type { RoleWriter } from '../../src/edges/outbound/discord/role-writer';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { Clock } from '../../src/shared/clock';
import { RAISED_GLOBAL_PER_SECOND, raisedDiscord } from './raised-limits';

/** The Discord stand-in and our real role port over HTTP to it. */
export interface DiscordKit {
  sandbox: DiscordSandbox;
  directory: GuildDirectory;
  snapshots: GuildSnapshotCache;
  /** The member-role cache: trusted for no guild unless a test feeds it a gateway session. */
  memberRoles: MemberRoleCache;
  writer: RoleWriter;
  close(): Promise<void>;
}

/** `raisedLimits`: why the stand-in's limits (and Tierlink's count of the global one) are raised; Discord's real ones when absent. */
export async function createDiscordKit(clock: Clock, options: { raisedLimits?: string } = {}): Promise<DiscordKit> {
  const sandbox = await createDiscordSandbox(options.raisedLimits ? raisedDiscord(options.raisedLimits) : {});
  const { directory, snapshots, memberRoles, writer } = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    ...(options.raisedLimits ? { rest: { globalRequestsPerSecond: RAISED_GLOBAL_PER_SECOND } } : {}),
    snapshotTtlMs: 0,
    clock,
  });
  return { sandbox, directory, snapshots, memberRoles, writer, close: () => sandbox.close() };
}
