import type { Adoption, DecidedGrant, DesiredRoles, LedgerEntry } from './types';

/**
 * The roles to adopt for one member: the tier roles they should hold, already hold, and that
 * the ledger does not list as ours (given by hand, or by another bot such as Patreon's own).
 * The planner sends no request for such a role and, being no grant of ours, never removes it;
 * recording it as ours (`/sync adopt:true`, `npm run sync -- --adopt`) makes it go when the
 * pledge ends, as every role Tierlink grants does. Only tier roles: the former-patron and
 * follower roles are a server's own choice, not a pledge's.
 */
export function adoptions(desired: DesiredRoles, currentRoleIds: ReadonlySet<string> | null, ledger: readonly LedgerEntry[]): Adoption[] {
  return adoptable(desired, currentRoleIds, ledger).map((grant) => ({
    roleId: grant.roleId,
    roleName: grant.roleName,
    grant: { campaignId: grant.campaignId, tierId: grant.tierId, kind: grant.kind, sources: grant.sources },
    reason: `already held; adopted as ${grant.reason}`,
    why: { code: 'adopted', as: grant.why },
  }));
}

/** The grants {@link adoptions} adopts, without the words: what a decision (`decideUser`) tells of them. */
export function adoptable<G extends DecidedGrant>(
  desired: { grants: ReadonlyMap<string, G> },
  currentRoleIds: ReadonlySet<string> | null,
  ledger: readonly LedgerEntry[],
): G[] {
  if (!currentRoleIds) return [];
  let ours: Set<string> | null = null;
  const out: G[] = [];
  for (const grant of desired.grants.values()) {
    if (grant.kind !== 'tier' || !currentRoleIds.has(grant.roleId)) continue;
    ours ??= new Set(ledger.map((entry) => entry.roleId));
    if (!ours.has(grant.roleId)) out.push(grant);
  }
  return out;
}
