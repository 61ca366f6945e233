import { createDiscordAccess } from '../../src/edges/outbound/discord';
import type { GuildDirectory } from '../../src/edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../src/edges/outbound/discord/guild-snapshot-cache';
import type { MemberRoleCache } from '../../src/edges/outbound/discord/member-roles';
import type { RoleWriter } from '../../src/edges/outbound/discord/role-writer';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { Clock } from '../../src/shared/clock';
import { raisedDiscord, tierlinkRestBeside } from './raised-limits';

/** The Discord stand-in and our real role port over HTTP to it. */
export interface DiscordKit {
  sandbox: DiscordSandbox;
  /** Why the stand-in's limits are raised for this file; absent: Discord's real ones. */
  raisedLimits: string | undefined;
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
    ...tierlinkRestBeside(options.raisedLimits),
    snapshotTtlMs: 0,
    clock,
  });
  return { sandbox, raisedLimits: options.raisedLimits, directory, snapshots, memberRoles, writer, close: () => sandbox.close() };
}
