/**
 * Records the membership-service sandbox keeps in memory, and the input shapes of its control
 * methods. Field names follow the spec (`docs/membership-service-api.md`, "Resources and their
 * fields"), camel-cased; the JSON:API rendering turns them back into the spec's snake_case names.
 */

/** `Member.patron_status` (spec: States and transitions). */
export type PatronStatus = 'active_patron' | 'declined_patron' | 'former_patron' | null;

/**
 * `Member.last_charge_status`: the spec's seven values (States and transitions) and the three more
 * Patreon documents (`Refunded by Patreon`, `Partially Refunded`, `Free Trial`; docs/patreon-api-notes.md
 * §3.2). The spec dialect refuses to hold the three (see `dialect.ts`).
 */
export type ChargeStatus =
  | 'Paid'
  | 'Declined'
  | 'Deleted'
  | 'Pending'
  | 'Refunded'
  | 'Fraud'
  | 'Other'
  | 'Refunded by Patreon'
  | 'Partially Refunded'
  | 'Free Trial'
  | null;

/** A JSON value as stored for free-form attributes such as `chat_role_ids`. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface UserRecord {
  id: string;
  fullName: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  vanity: string | null;
  about: string | null;
  discordUserId: string | null;
  /** `hide_pledges`: the user keeps private which creators they pledge to. */
  hidePledges: boolean;
  createdAt: Date;
}

export interface CampaignRecord {
  id: string;
  creatorId: string;
  vanity: string | null;
  summary: string | null;
  creationName: string | null;
  isMonthly: boolean;
  isNsfw: boolean;
  /** Served as `chat_server_id` (spec) or `discord_server_id` (Patreon). */
  chatServerId: string | null;
  createdAt: Date;
  publishedAt: Date | null;
}

export interface TierRecord {
  id: string;
  campaignId: string;
  title: string;
  description: string;
  amountCents: number;
  published: boolean;
  /**
   * Served as `chat_role_ids` in the spec dialect (spec: Tier), and as `discord_role_ids` in
   * Patreon's when `discordRoleIds` is null. Any JSON shape, so tests can serve odd ones.
   */
  chatRoleIds: JsonValue;
  /** Served as `discord_role_ids` in Patreon's dialect (as `chat_role_ids` in the spec's when `chatRoleIds` is null). */
  discordRoleIds: JsonValue;
  userLimit: number | null;
  createdAt: Date;
  editedAt: Date;
  publishedAt: Date | null;
  unpublishedAt: Date | null;
  deleted: boolean;
}

export interface MemberRecord {
  /** UUID-shaped (spec: Events, Delivery §1). */
  id: string;
  /** Insertion order inside the campaign; cursors point at it. */
  seq: number;
  userId: string;
  campaignId: string;
  patronStatus: PatronStatus;
  tierIds: string[];
  /** The spec's `is_follower`; Patreon's dialect always serves false (docs/patreon-api-notes.md §1.1). */
  isFollower: boolean;
  /** Patreon's `is_free_trial` (not served in the spec dialect). */
  isFreeTrial: boolean;
  /** Patreon's `is_gifted` (not served in the spec dialect). */
  isGifted: boolean;
  lastChargeDate: Date | null;
  lastChargeStatus: ChargeStatus;
  nextChargeDate: Date | null;
  pledgeRelationshipStart: Date | null;
  /** Null as in Patreon's webhook sample for a member who never pledged. */
  currentlyEntitledAmountCents: number | null;
  willPayAmountCents: number;
  lifetimeSupportCents: number;
  campaignLifetimeSupportCents: number;
  /** Patreon: "Can be null". */
  pledgeCadence: number | null;
  note: string;
  deleted: boolean;
}

export interface PostRecord {
  id: string;
  campaignId: string;
  userId: string;
  title: string | null;
  content: string | null;
  isPublic: boolean;
  isPaid: boolean;
  tierIds: string[];
  publishedAt: Date | null;
}

export interface OAuthClientRecord {
  id: string;
  secret: string;
  name: string;
  /** The creator who registered the client (spec: Authentication §1). */
  ownerUserId: string;
  redirectUris: string[];
}

export interface TokenRecord {
  value: string;
  kind: 'access' | 'refresh';
  clientId: string;
  userId: string;
  scopes: string[];
  /** Access tokens only. */
  expiresAt: Date | null;
  revoked: boolean;
  /** The other token of the pair. */
  partner: string;
}

export interface AuthorizationCodeRecord {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  userId: string;
  expiresAt: Date;
  used: boolean;
  /** PKCE (RFC 7636): the challenge the authorization request carried; the exchange must prove it. */
  codeChallenge: { value: string; method: 'S256' | 'plain' } | null;
}

export interface PendingAuthorization {
  id: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  expiresAt: Date;
  used: boolean;
  codeChallenge: { value: string; method: 'S256' | 'plain' } | null;
}

export interface QueuedEvent {
  trigger: string;
  body: string;
  createdAt: Date;
}

export interface WebhookRecord {
  id: string;
  clientId: string;
  campaignId: string;
  uri: string;
  triggers: string[];
  secret: string;
  paused: boolean;
  numConsecutiveTimesFailed: number;
  lastAttemptedAt: Date | null;
  /** Events not yet delivered, oldest first (spec: Webhook transitions; docs/tech-facts.md §8). */
  queue: QueuedEvent[];
}

/** One attempt to POST an event to a webhook's uri. */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  uri: string;
  trigger: string;
  /** HTTP status of the receiver's answer, or `null` when the connection failed. */
  status: number | null;
  ok: boolean;
  error: string | null;
  at: string;
  body: string;
  signature: string;
  headers: Record<string, string>;
  /** `queue`: the normal path. `redeliver` / `raw`: sent on purpose by a test. */
  kind: 'queue' | 'redeliver' | 'raw';
}

export type TokenKind = 'creator' | 'patron' | 'none' | 'invalid';

/** One request the service routes answered (control routes under `/__sandbox` are not logged). */
export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  at: string;
  tokenKind: TokenKind;
  /** Set when an injected fault answered instead of the route. */
  faultId: string | null;
}

// ---- control-method inputs ----

export interface CreateUserInput {
  fullName: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string;
  vanity?: string | null;
  discordUserId?: string | null;
  hidePledges?: boolean;
}

export interface CreateCampaignInput {
  vanity?: string | null;
  summary?: string | null;
  creationName?: string | null;
  chatServerId?: string | null;
  isMonthly?: boolean;
}

export interface CreateTierInput {
  title: string;
  amountCents: number;
  published?: boolean;
  description?: string;
  /** Stored and served as `chat_role_ids` (spec: Tier); defaults to null. */
  chatRoleIds?: JsonValue;
  /** Served as `discord_role_ids`, production's name for the same thing; defaults to null. */
  discordRoleIds?: JsonValue;
  userLimit?: number | null;
}

export type DateInput = Date | string | null;

export interface MembershipInput {
  patronStatus?: PatronStatus;
  tierIds?: string[];
  isFollower?: boolean;
  isFreeTrial?: boolean;
  isGifted?: boolean;
  lastChargeDate?: DateInput;
  lastChargeStatus?: ChargeStatus;
  nextChargeDate?: DateInput;
  pledgeRelationshipStart?: DateInput;
  /**
   * Defaults to the sum of the entitled tiers' amounts; in Patreon's dialect a member who never
   * pledged defaults to null, as its webhook sample shows.
   */
  currentlyEntitledAmountCents?: number | null;
  willPayAmountCents?: number;
  lifetimeSupportCents?: number;
  campaignLifetimeSupportCents?: number;
  pledgeCadence?: number | null;
  note?: string;
}

export interface ChangeOptions {
  /**
   * Trigger(s) to deliver, in order; default `members:create` for a new member, `members:update`
   * otherwise (`members:delete` for a delete).
   */
  trigger?: string | readonly string[];
  /** Send webhook deliveries for this change (default true). */
  deliver?: boolean;
}

export interface PostInput {
  title?: string | null;
  content?: string | null;
  isPublic?: boolean;
  isPaid?: boolean;
  tierIds?: string[];
}

/** Snapshot of a member as the control methods return it. */
export interface SandboxMember {
  id: string;
  userId: string;
  campaignId: string;
  patronStatus: PatronStatus;
  tierIds: string[];
  isFollower: boolean;
  isFreeTrial: boolean;
  isGifted: boolean;
  lastChargeDate: string | null;
  lastChargeStatus: ChargeStatus;
  pledgeRelationshipStart: string | null;
  currentlyEntitledAmountCents: number | null;
  lifetimeSupportCents: number;
  deleted: boolean;
}

export interface SandboxWebhook {
  id: string;
  clientId: string;
  campaignId: string;
  uri: string;
  triggers: string[];
  secret: string;
  paused: boolean;
  numConsecutiveTimesFailed: number;
  lastAttemptedAt: string | null;
  queued: number;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  ownerUserId: string;
  redirectUris: string[];
  /** The creator's tokens from registration (spec: Authentication §1–2). */
  creatorTokens: TokenPair;
}
