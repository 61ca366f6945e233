import type { ReasonCode } from './reasons';

/**
 * Plain data that the pure planner reads and returns. Nothing here knows about HTTP, Discord
 * clients or the database: triggers gather these values, the planner decides, the edges apply.
 */

import type { RefusalFacts } from '../refusal-text';

/**
 * Where an entitlement comes from: a membership service Tierlink reads (Patreon, Ko-fi) or the
 * server's own comps. The core never looks inside a name; each source's adapter turns what its
 * service knows into a {@link MemberState}.
 */
export type SourceName = string;

/** Why the service's answer for a member could not be read (an unknown enum value, an unexpected null). */
export interface UnreadableState {
  attribute: string;
  reason: string;
}

/**
 * How one source stands with one member of one campaign, time aside (the planner adds time: the
 * grace period, the end of a paid period or of a comp):
 * - `entitled`: entitled to `tierIds` now (until `until`, when set);
 * - `payment_failed`: a payment failed and may still go through: `tierIds` are kept for the
 *   server's grace period, counted from `failedSince`;
 * - `lapsed`: access ended with no grace (money returned, a fraud, a deleted pledge);
 * - `former`: a membership that has ended;
 * - `follower`: follows the campaign without paying;
 * - `none`: never paid.
 */
export type Standing = 'entitled' | 'payment_failed' | 'lapsed' | 'former' | 'follower' | 'none';

/** An amount of money a month, as the source states it (no conversion between currencies). */
export interface MonthlyAmount {
  cents: number;
  /** ISO 4217 code where the source says it; null where it does not (the campaign's own currency). */
  currency: string | null;
}

/**
 * What one source knows of one member of one campaign, in the planner's words: the one member
 * shape every source produces and every trigger plans from.
 */
export interface MemberState {
  source: SourceName;
  campaignId: string;
  /** The source's own id of this membership (Patreon's member id, a comp's id), where it has one. */
  memberId: string | null;
  /** When the source last said so (the read, the payment, the comp's grant). */
  readAt: Date | null;
  /** A state that holds in one server only (a comp); absent or null: wherever the campaign is served. */
  guildId?: string | null;
  standing: Standing;
  /** For `entitled`: what it rests on. */
  basis: EntitlementBasis | null;
  /** `entitled`: the entitled tiers; `payment_failed`: the tiers kept through the grace period. */
  tierIds: readonly string[];
  /** `payment_failed`: when the first failed payment of this membership was seen (the grace period counts from it). */
  failedSince: Date | null;
  /** `entitled`: when the entitlement ends by itself (a comp's end, a paid month); null: when the source says so. */
  until: Date | null;
  /** Whether the server's grace days extend `until` (a subscription paid month by month), or it ends exactly (a comp). */
  graceAfterUntil: boolean;
  /** The start of the continuous membership (tenure counts from it; a failed payment inside its grace does not break it). */
  since: Date | null;
  /** What the member is entitled to pay a month, whatever the tier (custom pledges included); null: unknown. */
  amount: MonthlyAmount | null;
  /** Follows the campaign (the follower role), whatever the standing. */
  isFollower: boolean;
  /**
   * The source's own words for the state, the start of every reason built from it: "active patron",
   * "payment declined", "former patron: the pledge has ended", "comp by @mod: staff".
   */
  detail: string;
  /** Set when the last read of this member could not be understood: its roles stay exactly as they are. */
  unreadable?: UnreadableState | null;
  /**
   * The state comes from a delivery's payload, not from a read of the service (the re-read failed).
   * A payload may be old or replayed, so it never raises entitlement above the last successful read:
   * it may keep or remove roles, never grant one. Absent: false.
   */
  unconfirmed?: boolean;
}

export type Mode = 'stack' | 'highest';

export interface GuildSettings {
  /** Days after a declined charge during which the roles stay (0–60). */
  graceDays: number;
  /** `stack`: every entitled tier's roles. `highest`: only the highest-priced entitled tier's. */
  mode: Mode;
  formerPatronRoleId: string | null;
  followerRoleId: string | null;
  /** Remove mapped roles from anyone not entitled, even roles Tierlink did not grant. */
  strict: boolean;
  /**
   * Whether the join page lets in people whose tiers grant no role here (followers, former patrons,
   * anyone with a Patreon account). Absent: no, only patrons whose tier grants a role join.
   */
  joinNonPatrons?: boolean;
  /**
   * The role a person who joins through the join page without a tier role gets (docs/decisions.md
   * §16). It stays while they have no tier role and gives way to tier roles. Absent or null: none.
   */
  joinerRoleId?: string | null;
  /**
   * Whether a free tier (`amount_cents` 0, e.g. Patreon's free membership) grants its mapped roles.
   * Absent: yes (the default), as for any mapped tier.
   */
  freeTiersGrantRoles?: boolean;
  /** A full sync holds removals above this share of our grants… */
  removalThresholdPercent: number;
  /** …when they are also at least this many. */
  removalThresholdMin: number;
}

/**
 * What an `active` entitlement rests on: a pledge, a free trial, a gift, a free membership (no
 * pledge, tiers listed), a paid period that outlives a cancelled pledge, a subscription paid for a
 * period (Ko-fi), or a comp given by the server's staff.
 */
export type EntitlementBasis = 'pledge' | 'free_trial' | 'gift' | 'free_membership' | 'paid_period' | 'subscription' | 'comp';

/**
 * - `active`: entitled now (see {@link EntitlementBasis}); `tierIds` are the entitled tiers.
 * - `grace`: payment declined, inside the grace period; `tierIds` are the tiers kept.
 * - `lapsed`: payment declined and the grace period is over (or none applies).
 * - `former`: `former_patron`.
 * - `follower`: never pledged (`patron_status` null) but follows the campaign.
 * - `none`: never pledged, or not a member of the campaign at all.
 */
export type EntitlementKind = 'active' | 'grace' | 'lapsed' | 'former' | 'follower' | 'none';

export interface Entitlement {
  /** The source that says so; null for "not a member of this campaign" (no source knows the member). */
  source: SourceName | null;
  campaignId: string;
  kind: EntitlementKind;
  /** Tiers that grant roles now (empty unless `active` or `grace`). */
  tierIds: string[];
  /** Why, for people: "payment declined on 2026-11-02; roles kept until 2026-11-09 (7-day grace period)". */
  reason: string;
  graceEndsAt: Date | null;
  isFollower: boolean;
  /** For `active`: what the entitlement rests on; null otherwise. */
  basis: EntitlementBasis | null;
  /**
   * The member's state could not be read: no role of this campaign is granted or removed (the
   * kind is `none`, but nothing follows from it).
   */
  unreadable: UnreadableState | null;
  /** The state comes from an unconfirmed payload: it may keep roles, never grant one. */
  unconfirmed: boolean;
  /** From the member state: the start of the continuous membership, and the monthly amount. */
  since: Date | null;
  amount: MonthlyAmount | null;
}

/** A tier of a campaign the guild serves, with the role ids its `chat_role_ids` give this guild. */
export interface GuildTier {
  campaignId: string;
  tierId: string;
  title: string;
  amountCents: number;
  /** From the tier's `chat_role_ids` / `discord_role_ids`, already narrowed to this guild. */
  roleIds: readonly string[];
  /** The tier no longer exists on the service. */
  removed: boolean;
  /**
   * Roles of {@link roleIds} that whoever connected the campaign could not give (src/core/connector-limit.ts):
   * never added for this tier; removals go on. Absent: none.
   */
  held?: ReadonlyMap<string, RoleProblem>;
}

/** A `/map` row. */
export interface GuildMappingRow {
  campaignId: string;
  tierId: string;
  roleId: string;
}

/** Why the bot cannot manage a role, and what the creator should change. */
export interface RoleProblem {
  message: string;
  fix: string;
  /** What the problem is, for a reader of another language (`refusalWords`, src/core/refusal-text.ts). */
  facts?: RefusalFacts;
}

/** A role that exists in the guild. */
export interface GuildRoleInfo {
  id: string;
  name: string;
  /** `null` when the bot can add and remove it. */
  problem: RoleProblem | null;
  /**
   * The role carries a dangerous permission (Administrator, Manage Roles, Ban Members…;
   * `DANGEROUS_PERMISSIONS` in src/core/authority.ts): strict mode never removes it.
   */
  dangerous: boolean;
  /**
   * Set when the role carries a dangerous permission that the server's owner or an administrator
   * has not allowed (`heldBack` in src/core/authority.ts): it is never added; removals go on.
   * Absent: not held back.
   */
  heldBack?: (RoleProblem & { permissions: readonly string[]; gained: boolean }) | null;
}

export interface GuildContext {
  guildId: string;
  settings: GuildSettings;
  campaignIds: readonly string[];
  tiers: readonly GuildTier[];
  mappings: readonly GuildMappingRow[];
  /** Every role that exists in the guild (roles missing from here do not exist). */
  roles: ReadonlyMap<string, GuildRoleInfo>;
  /** The server's roles by tenure and by amount (src/core/planner/rule-roles.ts). Absent: none. */
  ruleRoles?: readonly RuleRole[];
  /**
   * The Administrators who connected a served campaign, each with the highest role the campaign's
   * tiers are held below (src/core/connector-limit.ts). Absent: none.
   */
  connectors?: ReadonlyArray<{ campaignId: string; userId: string; roleId: string }>;
}

/**
 * A role for patrons of at least `months` continuous months (`tenure`), or for anyone entitled to
 * at least `cents` a month whatever the tier (`amount`, in the campaign's own currency).
 */
export type RuleRole = { kind: 'tenure'; roleId: string; months: number } | { kind: 'amount'; roleId: string; cents: number };

/**
 * `joiner`: the role of someone who joined through the join page without a tier role. `tenure` and
 * `amount`: a rule role ({@link RuleRole}).
 */
export type GrantKind = 'tier' | 'former' | 'follower' | 'joiner' | 'tenure' | 'amount';
/** Where the grant's mapping comes from: the tier's own Discord roles, `/map`, a setting, or a tenure or amount rule. */
export type GrantSource = 'chat_role_ids' | 'map' | 'setting' | 'rule';

export interface DesiredGrant {
  roleId: string;
  roleName: string;
  kind: GrantKind;
  campaignId: string | null;
  tierId: string | null;
  source: GrantSource;
  /** The first reason (the highest tier's), recorded with the grant. */
  reason: string;
  /** The same reason as a code, for readers of another language. */
  why: ReasonCode;
  /** Every other entitlement that justifies the same role (another source, another tier): the role stays while any does. */
  alsoBecause: readonly string[];
  /** {@link alsoBecause} as codes, in the same order. */
  alsoWhy: readonly ReasonCode[];
  /** The entitlement sources behind it (`patreon`, `comp`, …); empty for setting roles. */
  sources: readonly SourceName[];
  /** False when every justification is an unconfirmed payload: the role may be kept, never granted. */
  confirmed: boolean;
  /** Set when every justification is a tier role its campaign's connector could not give ({@link GuildTier.held}): kept, never added. */
  held?: RoleProblem;
}

/** A role the member does not get (or cannot get), with the reason, for `/status` and `/tiers`. */
export interface RoleNote {
  roleId: string;
  roleName: string | null;
  campaignId: string | null;
  tierId: string | null;
  /** The planner's sentence, in English (what the audit log and English replies show). */
  reason: string;
  fix: string | null;
  /** The same reason as fields, for replies in another language. */
  why: NoteWhy;
}

/** Why a role is not given, as fields: what {@link RoleNote.reason} says in English. */
export type NoteWhy =
  | { kind: 'tier_gone' | 'free_tier' | 'no_role' | 'not_your_tier'; tier: string }
  | { kind: 'role_missing' }
  | { kind: 'highest_only' }
  /** The member's standing in the tier's campaign does not entitle them (former patron, declined…). */
  | { kind: 'standing'; tier: string; entitlement: Entitlement };

export interface DesiredRoles {
  /** By role id. */
  grants: ReadonlyMap<string, DesiredGrant>;
  notes: readonly RoleNote[];
}

/**
 * A row of the ledger: a role Tierlink granted to this user in this guild. A grant is recorded
 * before its request is sent (and dropped if Discord refuses it), so a row may stand for a grant
 * still in flight.
 */
export interface LedgerEntry {
  roleId: string;
  campaignId: string | null;
  tierId: string | null;
  kind: GrantKind;
  /** When the grant was recorded. */
  recordedAt: Date;
}

/** What a grant is for, as the ledger records it: the tier (or setting or rule) and the sources that justified it. */
export interface GrantTarget {
  campaignId: string | null;
  tierId: string | null;
  kind: GrantKind;
  sources: readonly SourceName[];
}

/**
 * Every change, adoption and blocked change carries the planner's English sentence (`reason`, what
 * the audit log and English readers show) and the same reason as a code (`why`, said in another
 * language from src/core/reason-text.ts). The planner always sets `why`; a change made up elsewhere
 * (a test, a preview) may leave it out and is then said as its sentence.
 */
export type RoleChange =
  | {
      op: 'add';
      roleId: string;
      roleName: string;
      reason: string;
      why?: ReasonCode;
      grant: GrantTarget;
    }
  | {
      op: 'remove';
      roleId: string;
      roleName: string;
      reason: string;
      why?: ReasonCode;
      /** `ledger`: we granted it. `strict`: strict mode removes a mapped role we did not grant. */
      basis: 'ledger' | 'strict';
    }
  /** The ledger says we granted a role the member no longer has: drop the row, call nothing. */
  | { op: 'forget'; roleId: string; roleName: string | null; reason: string; why?: ReasonCode };

/**
 * A role a member already holds that Tierlink would grant them, recorded as Tierlink's grant
 * without a request (see `adopt.ts`).
 */
export interface Adoption {
  roleId: string;
  roleName: string;
  grant: GrantTarget;
  reason: string;
  why?: ReasonCode;
}

/** A change the planner wanted but the bot cannot make; no request is sent for it. */
export interface BlockedChange {
  op: 'add' | 'remove';
  roleId: string;
  roleName: string;
  reason: string;
  why?: ReasonCode;
  problem: RoleProblem;
}

export interface UserPlan {
  guildId: string;
  userId: string;
  changes: RoleChange[];
  blocked: BlockedChange[];
}

/** A planner value without its words: what a decision is (`decideUser` in src/core/planner/index.ts). */
export type Unworded<T> = T extends unknown ? Omit<T, 'reason' | 'why'> : never;

/** A grant as decided: the role and what it is for, without its reasons. */
export type DecidedGrant = Omit<DesiredGrant, 'reason' | 'why' | 'alsoBecause' | 'alsoWhy'>;

/** The roles a user should hold, without the reasons and without the notes of the roles they do not get. */
export interface DecidedRoles {
  grants: ReadonlyMap<string, DecidedGrant>;
}

/** A plan as decided: the same changes and blocked changes, without their reasons. */
export interface DecidedPlan {
  guildId: string;
  userId: string;
  changes: Array<Unworded<RoleChange>>;
  blocked: Array<Unworded<BlockedChange>>;
}
