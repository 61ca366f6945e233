import { createPrng, pickWeighted, prngSnowflake, prngUuid } from './prng';
import type { Store } from './store';
import type { ChargeStatus, PatronStatus } from './types';

const DAY_MS = 24 * 3600 * 1000;

/** Shares of each kind of member; they need not sum to 1. */
export interface MemberMix {
  active: number;
  declined: number;
  former: number;
  /** `patron_status` null with `is_follower` true. */
  follower: number;
  /** `patron_status` null and not following (listed by the service nonetheless). */
  never: number;
}

export const DEFAULT_MEMBER_MIX: MemberMix = { active: 0.62, declined: 0.08, former: 0.17, follower: 0.1, never: 0.03 };

export interface GenerateMembersOptions {
  campaignId: string;
  count: number;
  seed: number | string;
  /** Tiers to draw from; default: the campaign's published tiers. Cheaper tiers are drawn more often. */
  tierIds?: string[];
  mix?: Partial<MemberMix>;
  /** The Discord id of the i-th generated user, or null; default: about 60% have one. */
  discordUserIdFor?: (index: number) => string | null;
  /** Names are `${namePrefix} ${i}`; default `Patron`. */
  namePrefix?: string;
}

export interface GeneratedMembers {
  memberIds: string[];
  userIds: string[];
}

/**
 * Creates `count` users and their members of one campaign, deterministically from `seed` (no
 * Math.random), with a realistic mix of statuses, tiers and charge dates relative to the store's
 * clock. No webhooks fire. Linear in `count`; 100,000 members take well under a second or two.
 */
export function generateMembers(store: Store, options: GenerateMembersOptions): GeneratedMembers {
  const campaign = store.campaigns.get(options.campaignId);
  if (!campaign) throw new Error(`no campaign ${options.campaignId}`);
  const prng = createPrng(`${String(options.seed)}/${options.campaignId}`);
  const tierIds =
    options.tierIds ??
    store
      .tiersOf(campaign.id)
      .filter((t) => t.published)
      .map((t) => t.id);
  store.checkTiers(campaign.id, tierIds);
  const tiers = tierIds
    .map((id) => store.tiers.get(id))
    .filter((t) => t !== undefined)
    .sort((a, b) => a.amountCents - b.amountCents);
  const tierWeights = tiers.map((_, i) => 1 / (i + 1));
  const mix = { ...DEFAULT_MEMBER_MIX, ...options.mix };
  const kinds = ['active', 'declined', 'former', 'follower', 'never'] as const;
  const kindWeights = kinds.map((k) => mix[k]);
  const now = store.clock.now().getTime();
  const prefix = options.namePrefix ?? 'Patron';
  const memberIds: string[] = [];
  const userIds: string[] = [];

  for (let i = 0; i < options.count; i++) {
    const discordUserId = options.discordUserIdFor ? options.discordUserIdFor(i) : prng.next() < 0.6 ? prngSnowflake(prng) : null;
    const user = store.createUser({ fullName: `${prefix} ${i}`, discordUserId });
    const kind = tiers.length === 0 ? 'never' : kinds[pickWeighted(prng, kindWeights)];
    const tier = tiers.length > 0 ? tiers[pickWeighted(prng, tierWeights)] : undefined;
    const amount = tier?.amountCents ?? 0;
    const months = prng.int(1, 36);
    const start = new Date(now - months * 30 * DAY_MS - prng.int(0, 29) * DAY_MS);
    let patronStatus: PatronStatus = null;
    let tierIdsOf: string[] = [];
    let lastChargeDate: Date | null = null;
    let lastChargeStatus: ChargeStatus = null;
    let isFollower = false;
    let pledgeStart: Date | null = start;
    let entitled = 0;
    switch (kind) {
      case 'active':
        patronStatus = 'active_patron';
        tierIdsOf = tier ? [tier.id] : [];
        entitled = amount;
        lastChargeDate = new Date(now - prng.int(0, 29) * DAY_MS - prng.int(0, 86_399) * 1000);
        lastChargeStatus = prng.next() < 0.04 ? 'Pending' : 'Paid';
        break;
      case 'declined':
        patronStatus = 'declined_patron';
        // The service may already list no entitled tiers for a declined member (docs/architecture.md).
        tierIdsOf = tier && prng.next() < 0.5 ? [tier.id] : [];
        entitled = tierIdsOf.length > 0 ? amount : 0;
        lastChargeDate = new Date(now - prng.int(0, 20) * DAY_MS - prng.int(0, 86_399) * 1000);
        lastChargeStatus = 'Declined';
        break;
      case 'former':
        patronStatus = 'former_patron';
        lastChargeDate = new Date(now - prng.int(31, 400) * DAY_MS);
        lastChargeStatus = prng.next() < 0.9 ? 'Paid' : 'Refunded';
        break;
      case 'follower':
        isFollower = true;
        pledgeStart = null;
        break;
      default:
        pledgeStart = null;
        break;
    }
    let id = prngUuid(prng);
    while (store.members.has(id)) id = prngUuid(prng);
    const lifetime = patronStatus === null ? 0 : amount * Math.max(1, Math.min(months, 36));
    // Patreon's samples show null amounts and cadence for a member who never pledged.
    const neverPledgedNulls = patronStatus === null && store.dialect === 'patreon';
    store.insertMember({
      id,
      userId: user.id,
      campaignId: campaign.id,
      patronStatus,
      tierIds: tierIdsOf,
      isFollower,
      isFreeTrial: false,
      isGifted: false,
      lastChargeDate,
      lastChargeStatus,
      nextChargeDate: patronStatus === 'active_patron' && lastChargeDate ? new Date(lastChargeDate.getTime() + 30 * DAY_MS) : null,
      pledgeRelationshipStart: pledgeStart,
      currentlyEntitledAmountCents: neverPledgedNulls ? null : entitled,
      willPayAmountCents: patronStatus === 'active_patron' ? amount : 0,
      lifetimeSupportCents: lifetime,
      campaignLifetimeSupportCents: lifetime,
      pledgeCadence: neverPledgedNulls ? null : 1,
      note: '',
      deleted: false,
    });
    memberIds.push(id);
    userIds.push(user.id);
  }
  return { memberIds, userIds };
}
