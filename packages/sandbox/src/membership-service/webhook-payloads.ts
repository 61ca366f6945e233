import type { RenderContext, ResourceType } from './json-api';
import { renderDocument } from './json-api';
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

const INCLUDED_FIELDS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['member', DELIVERY_MEMBER_ATTRIBUTES],
  ['campaign', ['created_at', 'creation_name', 'is_monthly', 'patron_count', 'pledge_url', 'published_at', 'summary', 'url', 'vanity']],
  ['user', ['first_name', 'last_name', 'full_name', 'vanity', 'url', 'created', 'social_connections']],
  ['tier', ['title', 'amount_cents', 'published', 'chat_role_ids', 'discord_role_ids', 'description', 'url']],
  ['post', ['title', 'content', 'is_public', 'is_paid', 'published_at', 'url', 'tiers', 'embed_data', 'embed_url', 'app_id', 'app_status']],
]);

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
    { fields: INCLUDED_FIELDS, include: { address: {}, campaign: {}, currently_entitled_tiers: {}, user: {} } },
    { type: 'member', ids: [memberId], single: true },
  );
  return JSON.stringify({ ...doc, links: { self: `${baseUrl}/api/oauth2/v2/members/${memberId}` } });
}

/** Spec: Delivery §5 leaves the posts:* payload open; this one is the post with its campaign and author. */
export function postEventBody(store: Store, types: ReadonlyMap<string, ResourceType>, baseUrl: string, postId: string): string {
  const doc = renderDocument(
    payloadContext(store, baseUrl),
    types,
    { fields: INCLUDED_FIELDS, include: { campaign: {}, user: {} } },
    { type: 'post', ids: [postId], single: true },
  );
  return JSON.stringify({ ...doc, links: { self: `${baseUrl}/api/oauth2/v2/posts/${postId}` } });
}
