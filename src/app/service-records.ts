import type { SnapshotInput, SnapshotRow } from '../edges/store/repositories/snapshot-repository';
import type { Member } from '../edges/patreon';

/** A member as read from the service, in the shape the snapshot table stores. */
export function snapshotFromMember(member: Member, source: SnapshotRow['source']): SnapshotInput {
  return {
    campaignId: member.campaignId,
    memberId: member.id,
    patreonUserId: member.userId,
    patronStatus: member.patronStatus,
    isFollower: member.isFollower,
    lastChargeDate: member.lastChargeDate ? new Date(member.lastChargeDate) : null,
    lastChargeStatus: member.lastChargeStatus,
    entitledTierIds: [...member.entitledTierIds],
    pledgeRelationshipStart: member.pledgeRelationshipStart ? new Date(member.pledgeRelationshipStart) : null,
    entitledAmountCents: member.currentlyEntitledAmountCents,
    source,
  };
}
