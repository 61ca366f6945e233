/**
 * Plain data that the pure planner reads and returns. Nothing here knows about HTTP, Discord
 * clients or the database: triggers gather these values, the planner decides, the edges apply.
 */

export type PatronStatus = 'active_patron' | 'declined_patron' | 'former_patron' | null;

/**
 * `last_charge_status`: the spec's seven values and the three Patreon added (`Refunded by Patreon`,
 * `Partially Refunded`, `Free Trial`; docs/patreon-api-notes.md §3.2). Only `Paid` is a successful
 * charge; how each one counts is {@link CHARGE_RULES} in `entitlement.ts`.
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

/** Why the service's answer for a member could not be read (an unknown enum value, an unexpected null). */
export interface UnreadableState {
  attribute: string;
  reason: string;
}

/** What we know of one member of one campaign (the stored snapshot). */
export interface MemberState {
  campaignId: string;
  patronStatus: PatronStatus;
  lastChargeDate: Date | null;
  lastChargeStatus: ChargeStatus;
  /** The spec's `is_follower` (Patreon deprecated it: always false there). */
  isFollower: boolean;
  /** Patreon's `is_free_trial`: entitled to the listed tiers during the trial. Absent: false. */
  isFreeTrial?: boolean;
  /** Patreon's `is_gifted`: a gift membership, entitled to the listed tiers. Absent: false. */
  isGifted?: boolean;
  /** `currently_entitled_tiers` as last read. */
  entitledTierIds: readonly string[];
  /**
   * Tiers last seen while the member was `active_patron`. The service may list no entitled tiers
   * for a declined member, yet the grace period keeps what they had.
   */
  lastActiveTierIds: readonly string[];
  /**
   * The first declined charge seen for the current pledge, as the store keeps it with the snapshot
   * ({@link firstDeclineOf}): the grace period counts from it, not from `last_charge_date`, which
   * moves with every retry. Null when not declined, or (a snapshot stored before the store kept
   * it) unknown: `last_charge_date` is the anchor then.
   */
  firstDeclinedAt: Date | null;
  /** Set when the last read of this member could not be understood: its roles stay exactly as they are. */
  unreadable?: UnreadableState | null;
  /**
   * The state comes from a webhook's payload, not from a read of the service (the re-read failed).
   * A payload may be old or replayed, so it never raises entitlement above the last successful read:
   * it may keep or remove this campaign's roles, never grant one. Absent: false.
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
 * pledge, tiers listed), or a paid period that outlives a cancelled pledge.
 */
export type EntitlementBasis = 'pledge' | 'free_trial' | 'gift' | 'free_membership' | 'paid_period';

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
}

/** `joiner`: the role of someone who joined through the join page without a tier role. */
export type GrantKind = 'tier' | 'former' | 'follower' | 'joiner';
export type GrantSource = 'chat_role_ids' | 'map' | 'setting';

export interface DesiredGrant {
  roleId: string;
  roleName: string;
  kind: GrantKind;
  campaignId: string | null;
  tierId: string | null;
  source: GrantSource;
  reason: string;
}

/** A role the member does not get (or cannot get), with the reason, for `/status` and `/tiers`. */
export interface RoleNote {
  roleId: string;
  roleName: string | null;
  campaignId: string | null;
  tierId: string | null;
  reason: string;
  fix: string | null;
}

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

export type RoleChange =
  | {
      op: 'add';
      roleId: string;
      roleName: string;
      reason: string;
      grant: { campaignId: string | null; tierId: string | null; kind: GrantKind };
    }
  | {
      op: 'remove';
      roleId: string;
      roleName: string;
      reason: string;
      /** `ledger`: we granted it. `strict`: strict mode removes a mapped role we did not grant. */
      basis: 'ledger' | 'strict';
    }
  /** The ledger says we granted a role the member no longer has: drop the row, call nothing. */
  | { op: 'forget'; roleId: string; roleName: string | null; reason: string };

/**
 * A role a member already holds that Tierlink would grant them, recorded as Tierlink's grant
 * without a request (see `adopt.ts`).
 */
export interface Adoption {
  roleId: string;
  roleName: string;
  grant: { campaignId: string | null; tierId: string | null; kind: GrantKind };
  reason: string;
}

/** A change the planner wanted but the bot cannot make; no request is sent for it. */
export interface BlockedChange {
  op: 'add' | 'remove';
  roleId: string;
  roleName: string;
  reason: string;
  problem: RoleProblem;
}

export interface UserPlan {
  guildId: string;
  userId: string;
  changes: RoleChange[];
  blocked: BlockedChange[];
}
