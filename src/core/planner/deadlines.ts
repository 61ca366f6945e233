import { entitlement } from './entitlement';
import { nextTenureAt } from './rule-roles';
import type { Entitlement, GuildContext, MemberState } from './types';

/**
 * When a user's roles in a guild next change by themselves, after `now`: a grace period ends, a
 * comp or a paid period ends, a tenure rule is reached. The time a scheduled check should plan the
 * user again, so roles change within a minute of it rather than at the next nightly sync. Null when
 * nothing is due.
 */
export function nextDeadline(guild: Pick<GuildContext, 'settings' | 'ruleRoles'>, members: readonly MemberState[], now: Date): Date | null {
  return deadlineFrom(
    guild,
    members,
    members.map((m) => entitlement(m, guild.settings, now)),
    now,
  );
}

/**
 * {@link nextDeadline} from entitlements already worked out (the planner's, so that a full sync
 * works each member's entitlement out once): `entitlements[i]` is that of `members[i]`; any after
 * them (campaigns the user is not a member of) entitle nothing.
 */
export function deadlineFrom(
  guild: Pick<GuildContext, 'ruleRoles'>,
  members: readonly MemberState[],
  entitlements: readonly Entitlement[],
  now: Date,
): Date | null {
  let next: Date | null = null;
  const consider = (at: Date | null) => {
    if (at === null || at.getTime() <= now.getTime()) return;
    if (next === null || at.getTime() < next.getTime()) next = at;
  };
  for (const [i, ent] of entitlements.entries()) {
    if (ent.unreadable) continue;
    if (ent.kind === 'grace') consider(ent.graceEndsAt);
    if (ent.kind === 'active') consider(members[i]!.until);
  }
  consider(nextTenureAt(guild, entitlements, now));
  return next;
}
