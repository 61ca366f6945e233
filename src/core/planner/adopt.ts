import type { Adoption, DesiredRoles, LedgerEntry } from './types';

/**
 * The roles to adopt for one member: the tier roles they should hold, already hold, and that
 * the ledger does not list as ours (given by hand, or by another bot such as Patreon's own).
 * The planner sends no request for such a role and, being no grant of ours, never removes it;
 * recording it as ours (`/sync adopt:true`, `npm run sync -- --adopt`) makes it go when the
 * pledge ends, as every role Tierlink grants does. Only tier roles: the former-patron and
 * follower roles are a server's own choice, not a pledge's.
 */
export function adoptions(desired: DesiredRoles, currentRoleIds: ReadonlySet<string> | null, ledger: readonly LedgerEntry[]): Adoption[] {
  if (!currentRoleIds) return [];
  const ours = new Set(ledger.map((entry) => entry.roleId));
  const out: Adoption[] = [];
  for (const grant of desired.grants.values()) {
    if (grant.kind !== 'tier' || !currentRoleIds.has(grant.roleId) || ours.has(grant.roleId)) continue;
    out.push({
      roleId: grant.roleId,
      roleName: grant.roleName,
      grant: { campaignId: grant.campaignId, tierId: grant.tierId, kind: grant.kind, sources: grant.sources },
      reason: `already held; adopted as ${grant.reason}`,
      why: { code: 'adopted', as: grant.why },
    });
  }
  return out;
}
