import { type Authority, authorityOf, checkRoleAuthority, hasPermission } from '../../core/authority';
import { checkRoleAssignable } from '../../core/role-hierarchy';
import type { RefusalFacts } from '../../core/refusal-text';
import type { GuildDirectory, GuildRole } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshot, GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';

/**
 * Who asks: a member of a guild, named by ids only. Every service that manages roles takes this and
 * reads the member's roles itself, so a slash command, a button and a dashboard page all get the
 * same answer from Discord's current state, never from what the caller claims.
 */
export interface Actor {
  guildId: string;
  userId: string;
}

/** The actor's guild-level authority and the guild's roles, read together. */
export interface ActorView {
  actor: Actor;
  authority: Authority;
  /** The guild's roles and the bot's own role ids. */
  snapshot: GuildSnapshot;
  /** The actor's own roles (without @everyone), for what they may see (a channel's overwrites). */
  memberRoleIds: readonly string[];
  /** The guild's owner. */
  ownerId: string;
}

/** Why a request about a role is refused: the person may not (`not_allowed`) or the bot cannot (`bot_cannot`). */
export interface RoleRefusal {
  kind: 'not_allowed' | 'bot_cannot';
  message: string;
  fix: string;
  /** What the refusal is, for a reader of another language (`refusalWords`, src/core/refusal-text.ts). */
  facts?: RefusalFacts;
}

/** `role` is null only for a role missing from the guild when the bot need not manage it (an unmap). */
export type RoleDecision = { ok: true; role: GuildRole | null } | ({ ok: false } & RoleRefusal);

export const NOT_A_MEMBER: RoleRefusal & { kind: 'not_allowed'; facts: RefusalFacts } = {
  kind: 'not_allowed',
  message: 'You are not a member of this server (any more), so Tierlink cannot read your roles here.',
  fix: 'Run the command from inside the server.',
  facts: { code: 'not_a_member', roleName: '' },
};

export interface ActorAuthorityDeps {
  directory: Pick<GuildDirectory, 'getMember' | 'getGuild'>;
  snapshots: GuildSnapshotCache;
}

export function createActorAuthority(deps: ActorAuthorityDeps): ActorAuthority {
  /**
   * `fresh`: the guild's roles are read again rather than taken from the short-lived cache; every
   * decision that changes what Tierlink grants reads fresh. The member and the owner are always read.
   */
  async function read(actor: Actor, options: { fresh: boolean }): Promise<ActorView | null> {
    if (options.fresh) deps.snapshots.invalidate(actor.guildId);
    const [snapshot, member, guild] = await Promise.all([
      deps.snapshots.get(actor.guildId),
      deps.directory.getMember(actor.guildId, actor.userId),
      deps.directory.getGuild(actor.guildId),
    ]);
    if (!member) return null;
    const authority = authorityOf({
      guildId: actor.guildId,
      userId: actor.userId,
      ownerId: guild.ownerId,
      memberRoleIds: member.roleIds,
      roles: snapshot.roles,
    });
    return { actor, authority, snapshot, memberRoleIds: member.roleIds, ownerId: guild.ownerId };
  }

  return {
    read,

    async holds(actor: Actor, bit: bigint, options: { fresh: boolean } = { fresh: false }): Promise<boolean> {
      const view = await read(actor, options);
      return view !== null && hasPermission(view.authority, bit);
    },

    decide(view: ActorView, roleId: string, options: { botMustManage: boolean }): RoleDecision {
      const { guildId } = view.actor;
      const role = view.snapshot.roles.find((r) => r.id === roleId);
      if (role) {
        const allowed = checkRoleAuthority(view.authority, role);
        if (!allowed.ok)
          return { ok: false, kind: 'not_allowed', message: allowed.error.message, fix: allowed.error.fix, facts: allowed.error };
      }
      if (options.botMustManage) {
        const check = checkRoleAssignable({ guildId, roles: view.snapshot.roles, botRoleIds: view.snapshot.botRoleIds, roleId });
        if (!check.ok) return { ok: false, kind: 'bot_cannot', message: check.error.message, fix: check.error.fix, facts: check.error };
      }
      return { ok: true, role: role ?? null };
    },
  };
}

/**
 * Reads an actor's authority in a guild from Discord: the guild's owner, the member's roles and the
 * guild's roles (src/core/authority.ts decides from them). Guild-level only: the channel-level
 * permissions an interaction carries are never consulted.
 */
export interface ActorAuthority {
  read(actor: Actor, options: { fresh: boolean }): Promise<ActorView | null>;
  /**
   * Whether the actor holds a permission at guild level (the run-time check of an admin command);
   * `fresh` for a decision that changes what Tierlink grants.
   */
  holds(actor: Actor, bit: bigint, options?: { fresh: boolean }): Promise<boolean>;
  /**
   * May the actor have Tierlink grant and remove `roleId`: their authority over it, and, with
   * `botMustManage`, the bot's ability to assign it. A role missing from the guild passes the
   * authority check (there is nothing left to manage) and fails the bot's.
   */
  decide(view: ActorView, roleId: string, options: { botMustManage: boolean }): RoleDecision;
}
