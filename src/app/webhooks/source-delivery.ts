import type { Result } from '../../core/result';
import type { Post } from '../../edges/outbound/patreon/posts';
import type { PlannerSnapshot } from '../../edges/outbound/store/repositories/planner-snapshots';
import type { MemberRead } from '../membership/member-intake';

/**
 * A verified delivery as its source's adapter parsed it, once (the Patreon one:
 * src/edges/outbound/patreon/delivery-parser.ts). The processor and the member refresh work from
 * this and never see the body: what a delivery says is read in one place, by the source that wrote it.
 */
export type SourceDelivery =
  | { kind: 'member'; member: DeliveredMember }
  | { kind: 'post'; campaignId: string | null; postId: string | null; published: boolean; post: Post | null }
  | { kind: 'ignored'; type: string | null };

/** A stored inbox row, as far as parsing goes. */
export interface StoredDelivery {
  body: string;
  /** The service's event name (`X-Patreon-Event`), when it sent one. */
  trigger: string | null;
  /** The campaign of the webhook that signed it, when that webhook is one campaign's. */
  campaignId: string | null;
}

/** Turns a stored delivery into what it says; throws only on a body that is not JSON (the endpoint refuses those). */
export type DeliveryParser = (delivery: StoredDelivery) => SourceDelivery;

/** A stored read of the member, as a delivery is compared to it. */
export type StoredMemberRead = PlannerSnapshot & { externalUserId: string | null };

/** A delivery about one member of a source. */
export interface DeliveredMember {
  /** The source it came from (links, snapshots and grants are stored under it). */
  source: string;
  /** The signing webhook's campaign, else the one the body names; null when neither names one. */
  campaignId: string | null;
  memberId: string;
  /** The person on the source, when the body names them (whose roles to reconcile if the member is gone). */
  externalUserId: string | null;
  /** The member's name as the delivery gives it, for people to read (never stored from here). */
  name: string | null;
  /** The source says the member was removed. */
  removed: boolean;
  /**
   * The delivery's contents, normalised: two deliveries saying the same compare equal, so a replay
   * within the read window waits for the re-check instead of buying a read.
   */
  contents: string;
  /** The member state it carries (the fallback when the re-read fails), or why it carries none usable. */
  state: Result<DeliveredMemberState, string>;
}

export interface DeliveredMemberState {
  /** As the intake stores it: unconfirmed, so it may keep or remove roles and never grant one (src/core/planner/plan.ts). */
  read: MemberRead;
  /** The Discord account the delivery's profile names, if any. */
  profileDiscordUserId: string | null;
  /** Whether it says for roles exactly what this stored read says: then the delivery needs no read. */
  sameForRoles(stored: StoredMemberRead): boolean;
}
