import { type Result, err, ok } from '../../../core/result';
import { type IncludedIndex, type Resource, indexIncluded, parseDocument, relatedId, relatedIds } from './json-api';
import { type PatronStatus, discordUserIdOf } from './resources';

/** The member state a webhook delivery carries: what is left to go on when the re-read fails. */
export interface PayloadMember {
  memberId: string;
  /** The member's `user` relationship; null when the body does not name one. */
  userId: string | null;
  patronStatus: PatronStatus;
  isFollower: boolean;
  /** Patreon's `is_free_trial` and `is_gifted` (false when the body lacks them). */
  isFreeTrial: boolean;
  isGifted: boolean;
  lastChargeDate: Date | null;
  lastChargeStatus: string | null;
  entitledTierIds: string[];
  pledgeRelationshipStart: Date | null;
  entitledAmountCents: number | null;
  /** `social_connections.discord.user_id` of the included user, when the body carries it. */
  discordUserId: string | null;
}

const PATRON_STATUSES = new Set(['active_patron', 'declined_patron', 'former_patron']);

function dateOrNull(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at);
}

/**
 * The member state a delivery body carries, for when the re-read fails. The body's attribute set
 * is the service's (spec: Events, Delivery §1), not one we asked for, so this reads leniently where
 * a default is harmless (`is_follower`, dates, amounts) and refuses where a guess would grant or
 * remove roles: without `patron_status` or the entitled tiers there is no usable state (docs/architecture.md:
 * a failed read never reads as "not a patron"). The v2 sample's `currently_entitled_rewards` is read
 * when `currently_entitled_tiers` is absent (docs/tech-facts.md §8). That leniency is why the
 * strict `parseMember` of resources.ts is not used here.
 */
export function memberFromPayload(body: unknown): Result<PayloadMember, string> {
  let resource: Resource;
  let included: IncludedIndex;
  try {
    const doc = parseDocument(body, { method: 'WEBHOOK', path: 'delivery' });
    if (doc.data === null || Array.isArray(doc.data)) return err('the primary data is not one resource');
    resource = doc.data;
    included = indexIncluded(doc.included);
  } catch (error) {
    return err(error instanceof Error ? error.message : String(error));
  }
  if (resource.type !== 'member') return err(`the primary resource is a ${resource.type}, not a member`);
  const attributes = resource.attributes ?? {};
  if (!('patron_status' in attributes)) return err('patron_status is missing');
  const status = attributes.patron_status;
  if (status !== null && !(typeof status === 'string' && PATRON_STATUSES.has(status)))
    return err(`patron_status ${JSON.stringify(status)} is not a known status`);
  const tierIds = relatedIds(resource, 'currently_entitled_tiers') ?? relatedIds(resource, 'currently_entitled_rewards');
  if (tierIds === undefined) return err('currently_entitled_tiers is missing');
  const userId = relatedId(resource, 'user') ?? null;
  const user = userId !== null ? included.get('user', userId) : undefined;
  const amount = attributes.currently_entitled_amount_cents;
  const chargeStatus = attributes.last_charge_status;
  return ok({
    memberId: resource.id,
    userId,
    patronStatus: status as PatronStatus,
    isFollower: attributes.is_follower === true,
    isFreeTrial: attributes.is_free_trial === true,
    isGifted: attributes.is_gifted === true,
    lastChargeDate: dateOrNull(attributes.last_charge_date),
    lastChargeStatus: typeof chargeStatus === 'string' ? chargeStatus : null,
    entitledTierIds: [...new Set(tierIds)],
    pledgeRelationshipStart: dateOrNull(attributes.pledge_relationship_start),
    entitledAmountCents: typeof amount === 'number' && Number.isFinite(amount) ? Math.round(amount) : null,
    discordUserId: user?.attributes && 'social_connections' in user.attributes ? discordUserIdOf(user.attributes.social_connections) : null,
  });
}
