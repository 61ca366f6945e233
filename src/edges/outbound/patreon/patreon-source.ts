import type { EntitlementSource } from '../../../core/entitlement-source';
import type { MemberState } from '../../../core/planner/types';
import type { PlannerSnapshot } from '../store/repositories/planner-snapshots';
import type { SnapshotRepository } from '../store/repositories/snapshot-repository';
import { CHARGE_STATUSES, type ChargeStatus, type PatreonMemberRead, patreonMemberState } from './member-standing';

/** The source name Patreon's links, snapshots and grants are stored under. */
export const PATREON = 'patreon';

const KNOWN_CHARGE_STATUSES = new Set<string>(CHARGE_STATUSES);

/** A stored snapshot as the read {@link patreonMemberState} turns into the planner's member state. */
export function storedRead(row: PlannerSnapshot): PatreonMemberRead {
  const unreadable = row.unreadable ? { attribute: row.unreadable.attribute, reason: row.unreadable.reason } : null;
  return {
    campaignId: row.campaignId,
    memberId: row.memberId,
    readAt: row.fetchedAt,
    patronStatus: row.patronStatus,
    lastChargeDate: row.lastChargeDate,
    // A status Patreon added after this release, stored from a delivery body: counted as `Other`.
    lastChargeStatus: (row.lastChargeStatus === null || KNOWN_CHARGE_STATUSES.has(row.lastChargeStatus)
      ? row.lastChargeStatus
      : 'Other') as ChargeStatus,
    isFollower: row.isFollower,
    isFreeTrial: row.isFreeTrial,
    isGifted: row.isGifted,
    entitledTierIds: row.entitledTierIds,
    lastActiveTierIds: row.lastActiveTierIds,
    firstDeclinedAt: row.firstDeclinedAt,
    pledgeRelationshipStart: row.pledgeRelationshipStart,
    entitledAmountCents: row.entitledAmountCents,
    ...(unreadable ? { unreadable } : {}),
    ...(row.readBy === 'webhook-payload' ? { unconfirmed: true } : {}),
  };
}

/** A stored snapshot as the planner's member state. */
export function patreonStateOf(row: PlannerSnapshot): MemberState {
  return patreonMemberState(storedRead(row));
}

/**
 * Patreon as an entitlement source: it can list a campaign's members, read one, push changes and
 * sign a patron in. Its member states come from the snapshots its reads stored (one statement for a
 * page of the full sync), through the patrons' links.
 */
export function createPatreonSource(deps: { snapshots: Pick<SnapshotRepository, 'forExternalUsers'> }): EntitlementSource {
  return {
    name: PATREON,
    label: 'Patreon',
    can: { list: true, read: true, push: true, signIn: true },
    async statesFor(discordUserIds, links) {
      const out = new Map<string, MemberState[]>();
      const ids = [...new Set(discordUserIds.flatMap((id) => links.get(id) ?? []))];
      if (ids.length === 0) return out;
      const rows = await deps.snapshots.forExternalUsers(PATREON, ids);
      for (const discordUserId of discordUserIds) {
        const externalId = links.get(discordUserId);
        const stored = externalId === undefined ? undefined : rows.get(externalId);
        if (stored && stored.length > 0) out.set(discordUserId, stored.map(patreonStateOf));
      }
      return out;
    },
  };
}
