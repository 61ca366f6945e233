import { entitlement } from './entitlement';
import { nextTenureAt } from './rule-roles';
import type { GuildContext, MemberState } from './types';

/**
 * When a user's roles in a guild next change by themselves, after `now`: a grace period ends, a
 * comp or a paid period ends, a tenure rule is reached. The time a scheduled check should plan the
 * user again, so roles change within a minute of it rather than at the next nightly sync. Null when
 * nothing is due.
 */
export function nextDeadline(guild: Pick<GuildContext, 'settings' | 'ruleRoles'>, members: readonly MemberState[], now: Date): Date | null {
  let next: Date | null = null;
  const consider = (at: Date | null) => {
    if (at === null || at.getTime() <= now.getTime()) return;
    if (next === null || at.getTime() < next.getTime()) next = at;
  };
  const entitlements = members.map((m) => entitlement(m, guild.settings, now));
  for (const [i, ent] of entitlements.entries()) {
    if (ent.unreadable) continue;
    if (ent.kind === 'grace') consider(ent.graceEndsAt);
    if (ent.kind === 'active') consider(members[i]!.until);
  }
  consider(nextTenureAt(guild, entitlements, now));
  return next;
}
