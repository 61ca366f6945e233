import type { Member, Tier } from '../edges/patreon';
import type { TierInput } from '../edges/store/repositories/campaign-repository';
import type { SnapshotInput, SnapshotRow } from '../edges/store/repositories/snapshot-repository';

/** What the service client reads, in the shapes the store keeps. */

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
    fullName: member.fullName.trim() === '' ? null : member.fullName.slice(0, 200),
    source,
  };
}

/** A tier as read from the service, in the shape the tier table stores. */
export function toTierInput(tier: Tier): TierInput {
  return {
    id: tier.id,
    title: tier.title,
    amountCents: tier.amountCents,
    patronCount: tier.patronCount,
    published: tier.published,
    roleIds: { everywhere: [...tier.roleIds.everywhere], byGuild: { ...tier.roleIds.byGuild } },
  };
}
