import { isSnowflake } from '../../core/snowflake';
import { PatreonApiError } from './errors';
import type { IncludedIndex, Resource } from './json-api';
import { relatedId, relatedIds } from './json-api';
import type { TierRoleIds } from '../../core/tier-roles';
import { TIER_ROLE_ID_ATTRIBUTES, parseTierRoleIds } from '../../core/tier-roles';

/** Spec: Member.patron_status; null means never pledged. */
export type PatronStatus = 'active_patron' | 'declined_patron' | 'former_patron' | null;
/** Spec: Member.last_charge_status; only `Paid` is a successful charge. */
export type ChargeStatus = 'Paid' | 'Declined' | 'Deleted' | 'Pending' | 'Refunded' | 'Fraud' | 'Other' | null;

const PATRON_STATUSES: readonly string[] = ['active_patron', 'declined_patron', 'former_patron'];
const CHARGE_STATUSES: readonly string[] = ['Paid', 'Declined', 'Deleted', 'Pending', 'Refunded', 'Fraud', 'Other'];

export interface Member {
  id: string;
  campaignId: string;
  userId: string;
  fullName: string;
  patronStatus: PatronStatus;
  isFollower: boolean;
  /** ISO 8601 UTC, or null when never charged. */
  lastChargeDate: string | null;
  lastChargeStatus: ChargeStatus;
  /** From `currently_entitled_tiers` (deleted tiers are absent: research (c)). */
  entitledTierIds: string[];
  pledgeRelationshipStart: string | null;
  currentlyEntitledAmountCents: number;
  lifetimeSupportCents: number;
  /** The user's `social_connections.discord.user_id`, when they connected Discord on the service. */
  discordUserId: string | null;
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
  chatServerId: string | null;
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
 * reading cannot drift apart (spec: rule 4).
 */
export const MEMBER_FIELDS = [
  'full_name',
  'patron_status',
  'is_follower',
  'last_charge_date',
  'last_charge_status',
  'pledge_relationship_start',
  'currently_entitled_amount_cents',
  'lifetime_support_cents',
] as const;
export const USER_FIELDS = ['full_name', 'social_connections'] as const;
export const TIER_BASE_FIELDS = ['title', 'amount_cents', 'patron_count', 'published'] as const;
export const CAMPAIGN_FIELDS = ['vanity', 'url', 'patron_count', 'chat_server_id'] as const;
export const CAMPAIGN_CREATOR_FIELDS = ['full_name'] as const;
export const WEBHOOK_FIELDS = ['triggers', 'uri', 'paused', 'last_attempted_at', 'num_consecutive_times_failed', 'secret'] as const;

/**
 * Attribute access that fails loudly. A missing attribute means a request forgot to ask for it
 * (v2 returns only what `fields` names), and reading it as null would turn "not asked" into
 * "not a patron" (DESIGN.md: a failed read never reads as "nobody is a patron").
 */
class Reader {
  private readonly attributes: Record<string, unknown>;

  constructor(
    private readonly resource: Resource,
    private readonly where: string,
  ) {
    this.attributes = resource.attributes ?? {};
  }

  private fail(name: string, expected: string): never {
    throw new PatreonApiError({
      kind: 'invalid_response',
      method: 'PARSE',
      path: this.where,
      message: `${this.resource.type} ${this.resource.id}: attribute ${name} is ${name in this.attributes ? `not ${expected}` : 'missing'}`,
    });
  }

  has(name: string): boolean {
    return name in this.attributes;
  }

  raw(name: string): unknown {
    if (!(name in this.attributes)) this.fail(name, 'present');
    return this.attributes[name];
  }

  string(name: string): string {
    const v = this.raw(name);
    return typeof v === 'string' ? v : this.fail(name, 'a string');
  }

  nullableString(name: string): string | null {
    const v = this.raw(name);
    return v === null || typeof v === 'string' ? v : this.fail(name, 'a string or null');
  }

  boolean(name: string): boolean {
    const v = this.raw(name);
    return typeof v === 'boolean' ? v : this.fail(name, 'a boolean');
  }

  integer(name: string): number {
    const v = this.raw(name);
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(name, 'a number');
  }

  optionalInteger(name: string): number | null {
    if (!this.has(name)) return null;
    const v = this.attributes[name];
    return v === null ? null : typeof v === 'number' && Number.isFinite(v) ? v : this.fail(name, 'a number or null');
  }

  /** An ISO date, normalised to `toISOString()` form. */
  nullableDate(name: string): string | null {
    const v = this.nullableString(name);
    if (v === null) return null;
    const at = Date.parse(v);
    return Number.isNaN(at) ? this.fail(name, 'a date') : new Date(at).toISOString();
  }

  oneOf<T extends string>(name: string, allowed: readonly string[]): T | null {
    const v = this.nullableString(name);
    if (v === null) return null;
    return allowed.includes(v) ? (v as T) : this.fail(name, `one of ${allowed.join(', ')}`);
  }
}

function missingRelationship(resource: Resource, name: string, where: string): never {
  throw new PatreonApiError({
    kind: 'invalid_response',
    method: 'PARSE',
    path: where,
    message: `${resource.type} ${resource.id}: relationship ${name} is missing (was it named in include?)`,
  });
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
}

/** A member (spec: Member), with its user's Discord id from the included user. */
export function parseMember(resource: Resource, included: IncludedIndex, context: MemberContext = {}): Member {
  const where = context.where ?? 'member';
  const r = new Reader(resource, where);
  const campaignId = relatedId(resource, 'campaign') ?? context.campaignId ?? missingRelationship(resource, 'campaign', where);
  const userId = relatedId(resource, 'user') ?? context.user?.id ?? missingRelationship(resource, 'user', where);
  const entitledTierIds =
    relatedIds(resource, 'currently_entitled_tiers') ?? missingRelationship(resource, 'currently_entitled_tiers', where);
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
    fullName: r.string('full_name'),
    patronStatus: r.oneOf<NonNullable<PatronStatus>>('patron_status', PATRON_STATUSES),
    isFollower: r.boolean('is_follower'),
    lastChargeDate: r.nullableDate('last_charge_date'),
    lastChargeStatus: r.oneOf<NonNullable<ChargeStatus>>('last_charge_status', CHARGE_STATUSES),
    entitledTierIds,
    pledgeRelationshipStart: r.nullableDate('pledge_relationship_start'),
    currentlyEntitledAmountCents: r.integer('currently_entitled_amount_cents'),
    lifetimeSupportCents: r.integer('lifetime_support_cents'),
    discordUserId,
  };
}

/** A tier (spec: Tier). At least one of the role-id attributes must have been requested. */
export function parseTier(resource: Resource, context: { campaignId?: string; where?: string } = {}): Tier {
  const where = context.where ?? 'tier';
  const r = new Reader(resource, where);
  if (!TIER_ROLE_ID_ATTRIBUTES.some((name) => r.has(name))) r.raw('chat_role_ids');
  return {
    id: resource.id,
    campaignId: relatedId(resource, 'campaign') ?? context.campaignId ?? missingRelationship(resource, 'campaign', where),
    title: r.string('title'),
    amountCents: r.integer('amount_cents'),
    patronCount: r.optionalInteger('patron_count'),
    published: r.boolean('published'),
    roleIds: parseTierRoleIds(resource.attributes ?? {}),
  };
}

/** A user (spec: User v2), memberships resolved against included members' campaign relationship. */
export function parseUser(resource: Resource, included: IncludedIndex, where = 'user'): User {
  const r = new Reader(resource, where);
  const memberships = (relatedIds(resource, 'memberships') ?? []).map((memberId) => {
    const member = included.get('member', memberId);
    return { memberId, campaignId: member ? (relatedId(member, 'campaign') ?? null) : null };
  });
  return {
    id: resource.id,
    fullName: r.string('full_name'),
    discordUserId: discordUserIdOf(r.raw('social_connections')),
    memberships,
  };
}

/** A campaign (spec: Campaign v2), the creator's name from the included creator. */
export function parseCampaign(resource: Resource, included: IncludedIndex, where = 'campaign'): Campaign {
  const r = new Reader(resource, where);
  const creatorId = relatedId(resource, 'creator') ?? null;
  const creator = creatorId ? included.get('user', creatorId) : undefined;
  const creatorName = creator ? new Reader(creator, where).string('full_name') : null;
  return {
    id: resource.id,
    vanity: r.nullableString('vanity'),
    url: r.nullableString('url'),
    creatorId,
    creatorName,
    patronCount: r.optionalInteger('patron_count'),
    chatServerId: r.nullableString('chat_server_id'),
  };
}

/** A webhook (spec: Webhook). */
export function parseWebhook(resource: Resource, context: { campaignId?: string; where?: string } = {}): Webhook {
  const r = new Reader(resource, context.where ?? 'webhook');
  const triggers = r.raw('triggers');
  if (!Array.isArray(triggers) || !triggers.every((t): t is string => typeof t === 'string')) {
    throw new PatreonApiError({
      kind: 'invalid_response',
      method: 'PARSE',
      path: context.where ?? 'webhook',
      message: `webhook ${resource.id}: triggers is not a list of names`,
    });
  }
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
}
