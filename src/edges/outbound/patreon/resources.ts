import { CHARGE_STATUSES, type ChargeStatus, PATRON_STATUSES, type PatronStatus } from './member-standing';
import { type Result, err, ok } from '../../../core/result';
import { isSnowflake } from '../../../core/snowflake';
import type { ServiceDialect } from './dialect';
import { RENAMES, nameIn } from './dialect';
import { PatreonApiError } from './errors';
import { AttributeProblem, AttributeReader, type OddValueSink } from './attribute-reader';
import type { IncludedIndex, Resource } from './json-api';
import { relatedId, relatedIds } from './json-api';
import type { TierRoleIds } from '../../../core/tier-roles';
import { TIER_ROLE_ID_ATTRIBUTES, parseTierRoleIds } from '../../../core/tier-roles';

/**
 * Member.patron_status (null: never pledged) and Member.last_charge_status (the spec's seven values
 * and Patreon's three more, docs/patreon-api-notes.md §3.2), with what each means (member-standing.ts).
 */
export type { ChargeStatus, PatronStatus } from './member-standing';
export { CHARGE_STATUSES, PATRON_STATUSES } from './member-standing';

export interface Member {
  id: string;
  campaignId: string;
  userId: string;
  fullName: string;
  patronStatus: PatronStatus;
  /**
   * The spec's `is_follower`: false when the answer does not carry it. Patreon deprecated it
   * ("always false", replaced by free membership: docs/patreon-api-notes.md §1.1), so its dialect
   * does not ask for it.
   */
  isFollower: boolean;
  /** Patreon's `is_free_trial`; false where the service has no such attribute (the spec's dialect). */
  isFreeTrial: boolean;
  /** Patreon's `is_gifted`; false where the service has no such attribute. */
  isGifted: boolean;
  /** ISO 8601 UTC, or null when never charged. */
  lastChargeDate: string | null;
  lastChargeStatus: ChargeStatus;
  /** From `currently_entitled_tiers` (deleted tiers are absent: docs/patreon-api-notes.md §10). */
  entitledTierIds: string[];
  pledgeRelationshipStart: string | null;
  /** Null as Patreon's own samples show it (docs/patreon-api-notes.md §3.3), or when unreadable: it decides nothing. */
  currentlyEntitledAmountCents: number | null;
  /** The user's `social_connections.discord.user_id`, when they connected Discord on the service. */
  discordUserId: string | null;
  /** The user's `hide_pledges` ("keep private which creators they pledge to"); null when the read did not include the user. */
  hidesPledges: boolean | null;
}

export interface Tier {
  id: string;
  campaignId: string;
  title: string;
  amountCents: number;
  /** Null when `patron_count` was not requested. */
  patronCount: number | null;
  published: boolean;
  roleIds: TierRoleIds;
}

export interface User {
  id: string;
  fullName: string;
  discordUserId: string | null;
  /** Memberships named in the resource's `memberships` relationship (identity only). */
  memberships: Array<{ memberId: string; campaignId: string | null }>;
}

export interface Campaign {
  id: string;
  vanity: string | null;
  url: string | null;
  creatorId: string | null;
  /** The included creator's `full_name`. */
  creatorName: string | null;
  patronCount: number | null;
  /** The campaign's Discord server: the spec's `chat_server_id`, Patreon's `discord_server_id`. */
  chatServerId: string | null;
  /** `is_monthly`: charges per month (true) or per creation (false); null when the answer lacks it. */
  isMonthly: boolean | null;
  /** `pay_per_name`: what patrons pay per, as the creator names it; null when absent. */
  payPerName: string | null;
}

export interface Webhook {
  id: string;
  /** Null when the answer did not carry the campaign relationship (POST/PATCH answers do not). */
  campaignId: string | null;
  uri: string;
  triggers: string[];
  paused: boolean;
  numConsecutiveTimesFailed: number;
  lastAttemptedAt: string | null;
  secret: string;
}

/**
 * The attributes each parser reads: requests use these as `fields[<type>]`, so asking and
 * reading cannot drift apart (spec: rule 4). The names both dialects share; {@link memberFields},
 * {@link tierFields} and {@link campaignFields} add the dialect's own.
 */
export const MEMBER_FIELDS = [
  'full_name',
  'patron_status',
  'last_charge_date',
  'last_charge_status',
  'pledge_relationship_start',
  'currently_entitled_amount_cents',
] as const;
export const USER_FIELDS = ['full_name', 'social_connections', 'hide_pledges'] as const;
export const TIER_BASE_FIELDS = ['title', 'amount_cents', 'patron_count', 'published'] as const;
export const CAMPAIGN_BASE_FIELDS = ['vanity', 'url', 'patron_count', 'is_monthly', 'pay_per_name'] as const;
export const CAMPAIGN_CREATOR_FIELDS = ['full_name'] as const;
/** An included campaign whose id is all we need (a member's, a webhook's): one small attribute, in both dialects. */
export const CAMPAIGN_LINK_FIELDS = ['vanity'] as const;
export const WEBHOOK_FIELDS = ['triggers', 'uri', 'paused', 'last_attempted_at', 'num_consecutive_times_failed', 'secret'] as const;

const present = (names: ReadonlyArray<string | null>): string[] => names.filter((n): n is string => n !== null);

/**
 * Nothing Patreon marks deprecated is asked for (docs/patreon-api-notes.md §1.1): `is_follower`
 * only in the spec's dialect (its follower role), `lifetime_support_cents` in neither (nothing reads it).
 */
export function memberFields(dialect: ServiceDialect): string[] {
  return [
    ...MEMBER_FIELDS,
    ...(dialect === 'spec' ? ['is_follower'] : []),
    ...present([nameIn(dialect, 'memberFreeTrial'), nameIn(dialect, 'memberGifted')]),
  ];
}

export function tierFields(dialect: ServiceDialect): string[] {
  return [...TIER_BASE_FIELDS, ...present([nameIn(dialect, 'tierRoles')])];
}

export function campaignFields(dialect: ServiceDialect): string[] {
  return [...CAMPAIGN_BASE_FIELDS, ...present([nameIn(dialect, 'campaignServer')])];
}

/** Runs a parser of a whole answer; an attribute problem becomes the `invalid_response` it always was. */
function orInvalid<T>(where: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof AttributeProblem)) throw error;
    throw new PatreonApiError({ kind: 'invalid_response', method: 'PARSE', path: where, message: error.message });
  }
}

function missingRelationship(resource: Resource, name: string): never {
  throw new AttributeProblem(resource, name, 'is missing (was the relationship named in include?)');
}

/** `social_connections.discord.user_id`; production lists unconnected apps as null. */
export function discordUserIdOf(socialConnections: unknown): string | null {
  if (typeof socialConnections !== 'object' || socialConnections === null) return null;
  const discord = (socialConnections as Record<string, unknown>).discord;
  if (typeof discord !== 'object' || discord === null) return null;
  const id = (discord as Record<string, unknown>).user_id;
  return isSnowflake(id) ? id : null;
}

export interface MemberContext {
  /** The campaign when the member's `campaign` relationship is not in the answer (a campaign's member list). */
  campaignId?: string;
  /** The user when the member's `user` relationship is not in the answer (identity memberships). */
  user?: User;
  /** Where the resource came from, for error messages. */
  where?: string;
  /** Where odd values of labels go (tolerated, reported by `/doctor`). */
  odd?: OddValueSink;
}

/**
 * A member the page could not read: a value that decides roles is of an unknown kind (a new
 * `patron_status`), or null where it must not be. Its roles stay as they are; it is counted and
 * logged with its id and the attribute, never taken for "not a patron".
 */
export interface UnreadableMember {
  memberId: string;
  /** From the relationships, when they could be read. */
  campaignId: string | null;
  userId: string | null;
  attribute: string;
  reason: string;
}

export type MemberReading = Result<Member, UnreadableMember>;

/**
 * A member (spec: Member), with its user's Discord id from the included user, or why it cannot be
 * read. Values that decide roles (`patron_status`, `last_charge_status`, `last_charge_date`,
 * `is_free_trial`, `is_gifted`, the entitled tiers, the user) are read strictly; values that only
 * label (`full_name`, the amounts, `pledge_relationship_start`) leniently, since Patreon's own
 * samples break its table there (`currently_entitled_amount_cents: null`). `is_follower` may be
 * absent (Patreon deprecated it): false then; an odd value of it is reported, and false.
 */
export function readMember(resource: Resource, included: IncludedIndex, context: MemberContext = {}): MemberReading {
  const campaign = relatedId(resource, 'campaign') ?? context.campaignId ?? null;
  const user = relatedId(resource, 'user') ?? context.user?.id ?? null;
  try {
    return ok(memberOf(resource, included, context));
  } catch (error) {
    if (!(error instanceof AttributeProblem)) throw error;
    return err({ memberId: resource.id, campaignId: campaign, userId: user, attribute: error.attribute, reason: error.reason });
  }
}

/** {@link readMember} for a single answer: an unreadable member is an `invalid_response` naming it. */
export function parseMember(resource: Resource, included: IncludedIndex, context: MemberContext = {}): Member {
  const reading = readMember(resource, included, context);
  if (reading.ok) return reading.value;
  const { memberId, attribute, reason } = reading.error;
  throw new PatreonApiError({
    kind: 'invalid_response',
    method: 'PARSE',
    path: context.where ?? 'member',
    message: `member ${memberId}: ${attribute} ${reason}`,
    unreadable: reading.error,
  });
}

function memberOf(resource: Resource, included: IncludedIndex, context: MemberContext): Member {
  const r = new AttributeReader(resource, context.odd);
  const campaignId = relatedId(resource, 'campaign') ?? context.campaignId ?? missingRelationship(resource, 'campaign');
  const userId = relatedId(resource, 'user') ?? context.user?.id ?? missingRelationship(resource, 'user');
  const entitledTierIds = relatedIds(resource, 'currently_entitled_tiers') ?? missingRelationship(resource, 'currently_entitled_tiers');
  const includedUser = included.get('user', userId);
  const discordUserId =
    includedUser?.attributes && 'social_connections' in includedUser.attributes
      ? discordUserIdOf(includedUser.attributes.social_connections)
      : context.user?.id === userId
        ? context.user.discordUserId
        : null;
  return {
    id: resource.id,
    campaignId,
    userId,
    patronStatus: r.oneOf<NonNullable<PatronStatus>>('patron_status', PATRON_STATUSES),
    lastChargeStatus: r.oneOf<NonNullable<ChargeStatus>>('last_charge_status', CHARGE_STATUSES),
    lastChargeDate: r.nullableDate('last_charge_date'),
    isFollower: r.has('is_follower') ? r.flag('is_follower', false) : false,
    isFreeTrial: r.optionalBoolean(RENAMES.memberFreeTrial.patreon),
    isGifted: r.optionalBoolean(RENAMES.memberGifted.patreon),
    entitledTierIds,
    fullName: r.has('full_name') ? r.label('full_name', '') : '',
    pledgeRelationshipStart: r.lenientDate('pledge_relationship_start'),
    currentlyEntitledAmountCents: r.lenientInteger('currently_entitled_amount_cents'),
    discordUserId,
    hidesPledges:
      includedUser?.attributes && 'hide_pledges' in includedUser.attributes ? includedUser.attributes.hide_pledges === true : null,
  };
}

export interface TierContext {
  campaignId?: string;
  where?: string;
  /** Where odd values of labels go (tolerated, reported by `/doctor`). */
  odd?: OddValueSink;
}

/** The title a tier Patreon answers without one is shown by. */
export const untitledTier = (id: string): string => `Tier ${id}`;

/**
 * A tier (spec: Tier), or why it cannot be read. What decides roles is read strictly (the amount,
 * which `highest` mode and free tiers compare; the role ids, at least one of whose attributes must
 * have been requested); what labels leniently, reported when odd: a null `title` reads as
 * "Tier <id>", an odd `published` as published, an odd `patron_count` as unknown.
 */
export function readTier(resource: Resource, context: TierContext = {}): Result<Tier, AttributeProblem> {
  try {
    const r = new AttributeReader(resource, context.odd);
    if (!TIER_ROLE_ID_ATTRIBUTES.some((name) => r.has(name))) r.raw(TIER_ROLE_ID_ATTRIBUTES.join(' / '));
    return ok({
      id: resource.id,
      campaignId: relatedId(resource, 'campaign') ?? context.campaignId ?? missingRelationship(resource, 'campaign'),
      title: r.label('title', untitledTier(resource.id)),
      amountCents: r.integer('amount_cents'),
      patronCount: r.count('patron_count'),
      published: r.flag('published', true),
      roleIds: parseTierRoleIds(resource.attributes ?? {}),
    });
  } catch (error) {
    if (error instanceof AttributeProblem) return err(error);
    throw error;
  }
}

/** {@link readTier} for a whole answer: an unreadable tier is an `invalid_response` naming it. */
export function parseTier(resource: Resource, context: TierContext = {}): Tier {
  const reading = readTier(resource, context);
  if (reading.ok) return reading.value;
  throw new PatreonApiError({ kind: 'invalid_response', method: 'PARSE', path: context.where ?? 'tier', message: reading.error.message });
}

/**
 * A user (spec: User v2), memberships resolved against included members' campaign relationship.
 * Nothing of a user decides roles but its Discord id, which reads as none when odd; a missing or
 * null name reads as empty (both reported to `odd`).
 */
export function parseUser(resource: Resource, included: IncludedIndex, where = 'user', odd?: OddValueSink): User {
  return orInvalid(where, () => userOf(resource, included, odd));
}

function userOf(resource: Resource, included: IncludedIndex, odd?: OddValueSink): User {
  const r = new AttributeReader(resource, odd);
  const memberships = (relatedIds(resource, 'memberships') ?? []).map((memberId) => {
    const member = included.get('member', memberId);
    return { memberId, campaignId: member ? (relatedId(member, 'campaign') ?? null) : null };
  });
  return {
    id: resource.id,
    fullName: r.label('full_name', ''),
    discordUserId: r.has('social_connections') ? discordUserIdOf(r.raw('social_connections')) : r.replaced('social_connections', null),
    memberships,
  };
}

/** A campaign (spec: Campaign v2), the creator's name from the included creator (odd: none, reported). */
export function parseCampaign(resource: Resource, included: IncludedIndex, where = 'campaign', odd?: OddValueSink): Campaign {
  return orInvalid(where, () => {
    const r = new AttributeReader(resource, odd);
    const creatorId = relatedId(resource, 'creator') ?? null;
    const creator = creatorId ? included.get('user', creatorId) : undefined;
    const creatorName = creator ? new AttributeReader(creator, odd).label('full_name', '') || null : null;
    return {
      id: resource.id,
      vanity: r.nullableString('vanity'),
      url: r.nullableString('url'),
      creatorId,
      creatorName,
      patronCount: r.optionalInteger('patron_count'),
      chatServerId: r.nullableStringOfEither([RENAMES.campaignServer.spec, RENAMES.campaignServer.patreon]),
      // How prices read on pages: worth showing, never worth failing a read for.
      isMonthly: typeof resource.attributes?.is_monthly === 'boolean' ? resource.attributes.is_monthly : null,
      payPerName: r.lenientString('pay_per_name'),
    };
  });
}

/** A webhook (spec: Webhook). */
export function parseWebhook(resource: Resource, context: { campaignId?: string; where?: string } = {}): Webhook {
  return orInvalid(context.where ?? 'webhook', () => {
    // The annotation lets \`r.fail\` (returns never) narrow \`triggers\`.
    const r: AttributeReader = new AttributeReader(resource);
    const triggers = r.raw('triggers');
    if (!Array.isArray(triggers) || !triggers.every((t): t is string => typeof t === 'string')) r.fail('triggers', 'a list of names');
    return {
      id: resource.id,
      campaignId: relatedId(resource, 'campaign') ?? context.campaignId ?? null,
      uri: r.string('uri'),
      triggers,
      paused: r.boolean('paused'),
      numConsecutiveTimesFailed: r.integer('num_consecutive_times_failed'),
      lastAttemptedAt: r.nullableDate('last_attempted_at'),
      secret: r.string('secret'),
    };
  });
}
