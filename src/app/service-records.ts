import type { Member, Tier, UnreadableMember } from '../edges/outbound/patreon';
import type { TierInput } from '../edges/outbound/store/repositories/campaign-repository';
import type { SnapshotInput, SnapshotRow, UnreadableInput } from '../edges/outbound/store/repositories/snapshot-repository';

/** What the service client reads, in the shapes the store keeps. */

/** A member as read from the service, in the shape the snapshot table stores. */
export function snapshotFromMember(member: Member, source: SnapshotRow['source']): SnapshotInput {
  return {
    campaignId: member.campaignId,
    memberId: member.id,
    patreonUserId: member.userId,
    patronStatus: member.patronStatus,
    isFollower: member.isFollower,
    isFreeTrial: member.isFreeTrial,
    isGifted: member.isGifted,
    lastChargeDate: member.lastChargeDate ? new Date(member.lastChargeDate) : null,
    lastChargeStatus: member.lastChargeStatus,
    entitledTierIds: [...member.entitledTierIds],
    pledgeRelationshipStart: member.pledgeRelationshipStart ? new Date(member.pledgeRelationshipStart) : null,
    entitledAmountCents: member.currentlyEntitledAmountCents,
    fullName: member.fullName.trim() === '' ? null : member.fullName.slice(0, 200),
    source,
  };
}

/** A member whose read could not be understood, in the shape the snapshot table marks. */
export function unreadableInput(member: UnreadableMember, campaignId: string, source: SnapshotRow['source']): UnreadableInput {
  return {
    campaignId: member.campaignId ?? campaignId,
    memberId: member.memberId,
    patreonUserId: member.userId,
    attribute: member.attribute,
    reason: member.reason,
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
