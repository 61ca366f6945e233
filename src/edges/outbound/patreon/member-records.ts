import type { TierInput } from '../store/repositories/campaign-repository';
import type { SnapshotInput, SnapshotRow, UnreadableInput } from '../store/repositories/snapshot-repository';
import type { PayloadMember } from './member-payload';
import { PATREON } from './patreon-source';
import type { Member, Tier, UnreadableMember } from './resources';

/** What Patreon's client reads, in the shapes Tierlink stores. */

/** A member as read from Patreon, in the shape the snapshot table stores. */
export function snapshotFromMember(member: Member, readBy: SnapshotRow['readBy']): SnapshotInput {
  return {
    source: PATREON,
    campaignId: member.campaignId,
    memberId: member.id,
    externalUserId: member.userId,
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
    ...(member.hidesPledges !== null ? { hidesPledges: member.hidesPledges } : {}),
    readBy,
  };
}

/** A delivery's payload (the re-read failed), stored as unconfirmed: it may keep or remove roles, never grant one. */
export function snapshotFromPayload(member: PayloadMember, campaignId: string): SnapshotInput {
  return {
    source: PATREON,
    campaignId,
    memberId: member.memberId,
    externalUserId: member.userId,
    patronStatus: member.patronStatus,
    isFollower: member.isFollower,
    isFreeTrial: member.isFreeTrial,
    isGifted: member.isGifted,
    lastChargeDate: member.lastChargeDate,
    lastChargeStatus: member.lastChargeStatus,
    entitledTierIds: member.entitledTierIds,
    pledgeRelationshipStart: member.pledgeRelationshipStart,
    entitledAmountCents: member.entitledAmountCents,
    readBy: 'webhook-payload',
  };
}

/** A member whose read could not be understood, in the shape the snapshot table marks. */
export function unreadableInput(member: UnreadableMember, campaignId: string, readBy: SnapshotRow['readBy']): UnreadableInput {
  return {
    source: PATREON,
    campaignId: member.campaignId ?? campaignId,
    memberId: member.memberId,
    externalUserId: member.userId,
    attribute: member.attribute,
    reason: member.reason,
    readBy,
  };
}

/** A tier as read from Patreon, in the shape the tier table stores. */
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
