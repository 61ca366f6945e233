import { type Result, err, ok } from '../../../core/result';
import type { PlannerSnapshot } from '../store/repositories/planner-snapshots';
import type { SnapshotInput } from '../store/repositories/snapshot-repository';
import { deliveryMatchesStored } from './delivery-state';
import { type Resource, relatedId } from './json-api';
import { memberFromPayload } from './member-payload';
import { snapshotFromPayload } from './member-records';
import { PATREON } from './patreon-source';
import { type Post, parsePost } from './posts';

/** A stored read of the member, as the delivery is compared to it. */
export type StoredMemberRead = PlannerSnapshot & { externalUserId: string | null };

/** What a Patreon delivery says (the application's port: src/app/webhooks/source-delivery.ts). */
interface DeliveredMember {
  source: string;
  campaignId: string | null;
  memberId: string;
  externalUserId: string | null;
  name: string | null;
  removed: boolean;
  contents: string;
  state: Result<
    {
      read: { snapshot: SnapshotInput; profileDiscordUserId: string | null };
      profileDiscordUserId: string | null;
      sameForRoles(stored: StoredMemberRead): boolean;
    },
    string
  >;
}

export type PatreonDelivery =
  | { kind: 'member'; member: DeliveredMember }
  /** `published`: a `posts:publish` (or untyped) delivery; `post`: what it carries, when that reads. */
  | { kind: 'post'; campaignId: string | null; postId: string | null; published: boolean; post: Post | null }
  | { kind: 'ignored'; type: string | null };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `data.relationships.campaign.data.id` of a delivery body, if present. */
export function payloadCampaignId(doc: unknown): string | null {
  if (!isObject(doc) || !isObject(doc.data)) return null;
  const relationships = doc.data.relationships;
  if (!isObject(relationships) || !isObject(relationships.campaign)) return null;
  const data = relationships.campaign.data;
  return isObject(data) && typeof data.id === 'string' ? data.id : null;
}

type DeliveryKind = 'member' | 'post' | 'other';

/** By trigger when the service named one (`X-Patreon-Event`), else by the primary resource's type. */
function kindOf(trigger: string | null, dataType: string | null): DeliveryKind {
  if (trigger !== null) {
    if (trigger.startsWith('members:')) return 'member';
    if (trigger.startsWith('posts:')) return 'post';
    return 'other';
  }
  if (dataType === 'member') return 'member';
  if (dataType === 'post') return 'post';
  return 'other';
}

/** The member's `full_name` in a delivery, trimmed, when it is a non-empty text: shown to people, never stored from here. */
function payloadName(data: Record<string, unknown>): string | null {
  const attributes = isObject(data.attributes) ? data.attributes : {};
  const name = typeof attributes.full_name === 'string' ? attributes.full_name.trim().slice(0, 200) : '';
  return name === '' ? null : name;
}

/** The post a delivery carries, or null when it carries none that reads (the handler then reads it, or skips it). */
function payloadPost(data: Record<string, unknown>): Post | null {
  try {
    return parsePost(data as unknown as Resource, 'post delivery');
  } catch {
    return null;
  }
}

/**
 * A verified, stored Patreon delivery, parsed once (docs/architecture.md: the webhook tour): the
 * application gets what it is about (a member, a post, or nothing it acts on) and, for a member,
 * the state it carries, and never sees the body again. Throws only on a body that is not JSON,
 * which the endpoint refused before storing (so a stored one that is not is worth a retry's log).
 */
export function parsePatreonDelivery(delivery: { body: string; trigger: string | null; campaignId: string | null }): PatreonDelivery {
  const doc = JSON.parse(delivery.body) as unknown;
  const data = isObject(doc) && isObject(doc.data) ? doc.data : null;
  const dataType = data && typeof data.type === 'string' ? data.type : null;
  const kind = kindOf(delivery.trigger, dataType);
  const campaignId = delivery.campaignId ?? payloadCampaignId(doc);
  if (kind === 'post') {
    const published = delivery.trigger === null || delivery.trigger === 'posts:publish';
    const postId = typeof data?.id === 'string' ? data.id : null;
    return { kind: 'post', campaignId, postId, published, post: published && data && postId !== null ? payloadPost(data) : null };
  }
  if (kind !== 'member' || dataType !== 'member' || typeof data?.id !== 'string') return { kind: 'ignored', type: dataType };
  const parsed = memberFromPayload(doc);
  let state: DeliveredMember['state'];
  if (!parsed.ok) state = parsed;
  else if (campaignId === null) state = err('the delivery names no campaign');
  else {
    const payload = parsed.value;
    const profileDiscordUserId = payload.discordUserId;
    state = ok({
      read: { snapshot: snapshotFromPayload(payload, campaignId), profileDiscordUserId },
      profileDiscordUserId,
      sameForRoles: (stored: StoredMemberRead) => deliveryMatchesStored(payload, stored),
    });
  }
  return {
    kind: 'member',
    member: {
      source: PATREON,
      campaignId,
      memberId: data.id,
      externalUserId: relatedId(data as unknown as Resource, 'user') ?? null,
      name: payloadName(data),
      removed: delivery.trigger === 'members:delete',
      contents: JSON.stringify(doc),
      state,
    },
  };
}
