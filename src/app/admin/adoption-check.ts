import { type Result, err, ok } from '../../core/result';
import { tierRoles } from '../../core/planner/desired-roles';
import type { GuildContextLoader } from '../sync/guild-context';
import { type Actor, type ActorAuthority, NOT_A_MEMBER } from './actor-authority';
import type { RoleRefusal } from '../../core/settings-problem-text';

/**
 * Why `/sync adopt:true` is refused to this actor, in words for them (English); `facts`: the roles
 * they may not manage and the first refusal, for a reader of another language.
 */
export interface AdoptionRefusal {
  message: string;
  fix: string;
  facts?: { roleNames: string[]; first: RoleRefusal };
}

export function createAdoptionCheck(deps: {
  authority: Pick<ActorAuthority, 'read' | 'decide'>;
  contexts: GuildContextLoader;
}): AdoptionCheck {
  return {
    async check(actor: Actor): Promise<Result<{ roleIds: string[] }, AdoptionRefusal>> {
      const [view, guild] = await Promise.all([deps.authority.read(actor, { fresh: true }), deps.contexts.load(actor.guildId)]);
      if (!view) return err({ message: NOT_A_MEMBER.message, fix: NOT_A_MEMBER.fix });
      const roleIds = [...new Set(guild.tiers.flatMap((tier) => tierRoles(guild, tier).map((r) => r.roleId)))];
      const refused: Array<{ name: string } & RoleRefusal> = [];
      for (const roleId of roleIds) {
        const role = view.snapshot.roles.find((r) => r.id === roleId);
        if (!role) continue;
        const decision = deps.authority.decide(view, roleId, { botMustManage: false });
        if (!decision.ok) refused.push({ name: role.name, message: decision.message, fix: decision.fix, facts: decision.facts });
      }
      if (refused.length === 0) return ok({ roleIds });
      const names = refused.map((r) => r.name);
      return err({
        message:
          `Adopting would make Tierlink take ${names.join(', ')} away from members when their pledge ends, and you may not ` +
          `manage ${refused.length === 1 ? 'that role' : 'those roles'}: ${refused[0]!.message}`,
        fix: refused[0]!.fix,
        facts: { roleNames: names, first: refused[0]! },
      });
    },
  };
}

/**
 * Whether an actor may have Tierlink adopt the tier roles members already hold.
 *
 * Adopting records a hand-given role as Tierlink's grant, so Tierlink later takes it away when the
 * pledge ends: in effect the actor has the bot remove that role from other people. Discord lets a
 * member take away only roles below their own highest role, and the dangerous ones only as owner
 * or administrator (src/core/authority.ts), so the actor must have that authority over every tier
 * role of the server that exists there. A tier's own role ids come from the creator's settings on
 * the membership service and were never checked against anyone, which is why this reads them all.
 */
export interface AdoptionCheck {
  check(actor: Actor): Promise<Result<{ roleIds: string[] }, AdoptionRefusal>>;
}
