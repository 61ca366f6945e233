import type { RenderContext, ResourceType } from './json-api';
import { renderDocument } from './json-api';
import type { ServiceDialect } from './dialect';
import type { Store } from './store';

/** Spec: Events, Delivery §1: the member attributes a member event carries. */
export const DELIVERY_MEMBER_ATTRIBUTES = [
  'currently_entitled_amount_cents',
  'full_name',
  'is_follower',
  'last_charge_date',
  'last_charge_status',
  'lifetime_support_cents',
  'note',
  'patron_status',
  'pledge_relationship_start',
] as const;

/**
 * Patreon's real member payloads carry every member attribute, not the spec's list, and the
 * included tiers and campaign with their Discord names (docs/patreon-api-notes.md §5.3).
 */
const PATREON_DELIVERY_MEMBER_ATTRIBUTES = [
  ...DELIVERY_MEMBER_ATTRIBUTES,
  'campaign_lifetime_support_cents',
  'is_free_trial',
  'is_gifted',
  'next_charge_date',
  'pledge_cadence',
  'will_pay_amount_cents',
] as const;

const CAMPAIGN_FIELDS = [
  'created_at',
  'creation_name',
  'is_monthly',
  'patron_count',
  'pledge_url',
  'published_at',
  'summary',
  'url',
  'vanity',
];
const POST_FIELDS = [
  'title',
  'content',
  'is_public',
  'is_paid',
  'published_at',
  'url',
  'tiers',
  'embed_data',
  'embed_url',
  'app_id',
  'app_status',
];
const USER_FIELDS = ['first_name', 'last_name', 'full_name', 'vanity', 'url', 'created', 'social_connections'];

function includedFields(dialect: ServiceDialect): ReadonlyMap<string, readonly string[]> {
  const patreon = dialect === 'patreon';
  return new Map<string, readonly string[]>([
    ['member', patreon ? PATREON_DELIVERY_MEMBER_ATTRIBUTES : DELIVERY_MEMBER_ATTRIBUTES],
    ['campaign', patreon ? [...CAMPAIGN_FIELDS, 'discord_server_id'] : CAMPAIGN_FIELDS],
    ['user', USER_FIELDS],
    ['tier', ['title', 'amount_cents', 'published', patreon ? 'discord_role_ids' : 'chat_role_ids', 'description', 'url']],
    ['post', POST_FIELDS],
  ]);
}

/**
 * Webhook bodies are rendered with the gating scopes of the members API (Delivery §3): member
 * data, no e-mail (not in the Delivery §1 list), no address data (the sandbox stores none).
 */
function payloadContext(store: Store, baseUrl: string): RenderContext {
  return { store, baseUrl, scopes: new Set(['campaigns', 'campaigns.members']), userId: null, client: null };
}

/**
 * A member event body (Delivery §1): the member with relationships address, campaign,
 * currently_entitled_tiers and user; `included` holds the campaign, the user and the tiers.
 */
export function memberEventBody(store: Store, types: ReadonlyMap<string, ResourceType>, baseUrl: string, memberId: string): string {
  const doc = renderDocument(
    payloadContext(store, baseUrl),
    types,
    { fields: includedFields(store.dialect), include: { address: {}, campaign: {}, currently_entitled_tiers: {}, user: {} } },
    { type: 'member', ids: [memberId], single: true },
  );
  return JSON.stringify({ ...doc, links: { self: `${baseUrl}/api/oauth2/v2/members/${memberId}` } });
}

/** Spec: Delivery §5 leaves the posts:* payload open; this one is the post with its campaign and author. */
export function postEventBody(store: Store, types: ReadonlyMap<string, ResourceType>, baseUrl: string, postId: string): string {
  const doc = renderDocument(
    payloadContext(store, baseUrl),
    types,
    { fields: includedFields(store.dialect), include: { campaign: {}, user: {} } },
    { type: 'post', ids: [postId], single: true },
  );
  return JSON.stringify({ ...doc, links: { self: `${baseUrl}/api/oauth2/v2/posts/${postId}` } });
}
