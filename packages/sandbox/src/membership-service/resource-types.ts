import type { ServiceDialect } from './dialect';
import type { RenderContext, ResourceType } from './json-api';
import { OMIT, defineType, iso, namesOnlyType } from './json-api';
import type { CampaignRecord, MemberRecord, OAuthClientRecord, PostRecord, TierRecord, UserRecord, WebhookRecord } from './types';

/**
 * The JSON:API types with exactly the attribute names of the dialect: the spec's ("Resources and
 * their fields", v2) or Patreon's documented ones (docs/patreon-api-notes.md §0-1). A name of the
 * other dialect is unknown here, so asking for it answers 400.
 */
export function createResourceTypes(dialect: ServiceDialect = 'spec'): ReadonlyMap<string, ResourceType> {
  const patreon = dialect === 'patreon';
  const list: ResourceType[] = [
    memberType(dialect),
    userType(dialect),
    campaignType(dialect),
    tierType(dialect),
    webhookType,
    oauthClientType(dialect),
    postType,
    namesOnlyType('address', ['addressee', 'line_1', 'line_2', 'postal_code', 'city', 'state', 'country', 'phone_number', 'created_at']),
    namesOnlyType('benefit', [
      'title',
      'description',
      'benefit_type',
      'rule_type',
      'created_at',
      'delivered_deliverables_count',
      'not_delivered_deliverables_count',
      'deliverables_due_today_count',
      'next_deliverable_due_date',
      'tiers_count',
      'is_deleted',
      'is_ended',
      'is_published',
      'app_external_id',
      'app_meta',
    ]),
    namesOnlyType('deliverable', ['completed_at', 'delivery_status', 'due_at']),
    namesOnlyType('goal', ['amount_cents', 'title', 'description', 'created_at', 'reached_at', 'completed_percentage']),
    namesOnlyType('media', [
      'file_name',
      'size_bytes',
      'mimetype',
      'state',
      'owner_type',
      'owner_id',
      'owner_relationship',
      'upload_expires_at',
      'upload_url',
      'upload_parameters',
      'download_url',
      'image_urls',
      'created_at',
      'metadata',
    ]),
    namesOnlyType('pledge-event', [
      'amount_cents',
      'currency_code',
      'date',
      'payment_status',
      'tier_id',
      'tier_title',
      'type',
      ...(patreon ? ['pledge_payment_status'] : []),
    ]),
  ];
  return new Map(list.map((t) => [t.type, t]));
}

const findMember = (ctx: RenderContext, id: string): MemberRecord | undefined => ctx.store.members.get(id);
const findUser = (ctx: RenderContext, id: string): UserRecord | undefined => ctx.store.users.get(id);
const findCampaign = (ctx: RenderContext, id: string): CampaignRecord | undefined => ctx.store.campaigns.get(id);
const findTier = (ctx: RenderContext, id: string): TierRecord | undefined => ctx.store.tiers.get(id);

/** The member's user is the caller: own data is gated by `identity[email]`, others' by the members scope. */
function emailAllowed(ctx: RenderContext, userId: string): boolean {
  return ctx.userId === userId ? ctx.scopes.has('identity[email]') : ctx.scopes.has('campaigns.members[email]');
}

const campaignUrl = (c: CampaignRecord, ctx: RenderContext): string => `${ctx.baseUrl}/${c.vanity ?? `c/${c.id}`}`;

type Getter<R> = (record: R, ctx: RenderContext) => unknown;

function memberType(dialect: ServiceDialect): ResourceType {
  const patreon = dialect === 'patreon';
  const getters: Record<string, Getter<MemberRecord>> = {
    patron_status: (m) => m.patronStatus,
    // Patreon: "[DEPRECATED!] ... This will always be false, following has been replaced by free membership."
    is_follower: (m) => (patreon ? false : m.isFollower),
    full_name: (m, ctx) => ctx.store.users.get(m.userId)?.fullName ?? '',
    email: (m, ctx) => (emailAllowed(ctx, m.userId) ? (ctx.store.users.get(m.userId)?.email ?? '') : OMIT),
    pledge_relationship_start: (m) => iso(m.pledgeRelationshipStart),
    lifetime_support_cents: (m) => m.lifetimeSupportCents,
    campaign_lifetime_support_cents: (m) => m.campaignLifetimeSupportCents,
    currently_entitled_amount_cents: (m) => m.currentlyEntitledAmountCents,
    last_charge_date: (m) => iso(m.lastChargeDate),
    last_charge_status: (m) => m.lastChargeStatus,
    next_charge_date: (m) => iso(m.nextChargeDate),
    note: (m) => m.note,
    will_pay_amount_cents: (m) => m.willPayAmountCents,
    pledge_cadence: (m) => m.pledgeCadence,
  };
  if (patreon) {
    getters.is_free_trial = (m) => m.isFreeTrial;
    getters.is_gifted = (m) => m.isGifted;
  }
  return defineType<MemberRecord>({
    type: 'member',
    find: findMember,
    attributes: getters,
    relationships: {
      address: { type: 'address', many: false, get: () => null },
      campaign: { type: 'campaign', many: false, get: (m) => m.campaignId },
      currently_entitled_tiers: { type: 'tier', many: true, get: (m, ctx) => ctx.store.liveTierIds(m) },
      user: { type: 'user', many: false, get: (m) => m.userId },
      pledge_history: { type: 'pledge-event', many: true, get: () => [] },
    },
  });
}

/** Production lists every supported app with null when not connected; Discord carries `user_id`. */
function socialConnections(u: UserRecord): Record<string, unknown> {
  return {
    deviantart: null,
    discord: u.discordUserId ? { user_id: u.discordUserId, url: null } : null,
    facebook: null,
    reddit: null,
    spotify: null,
    twitch: null,
    twitter: null,
    youtube: null,
  };
}

function userType(dialect: ServiceDialect): ResourceType {
  return defineType<UserRecord>({
    type: 'user',
    find: findUser,
    attributes: {
      ...(dialect === 'patreon' ? { is_creator: (u: UserRecord, ctx: RenderContext) => ctx.store.campaignsOf(u.id).length > 0 } : {}),
      email: (u, ctx) => (emailAllowed(ctx, u.id) ? u.email : OMIT),
      first_name: (u) => u.firstName,
      last_name: (u) => u.lastName,
      full_name: (u) => u.fullName,
      is_email_verified: () => true,
      vanity: (u) => u.vanity,
      about: (u) => u.about,
      image_url: (u, ctx) => `${ctx.baseUrl}/static/users/${u.id}.png`,
      thumb_url: (u, ctx) => `${ctx.baseUrl}/static/users/${u.id}-thumb.png`,
      can_see_nsfw: () => false,
      created: (u) => iso(u.createdAt),
      url: (u, ctx) => `${ctx.baseUrl}/user?u=${u.id}`,
      like_count: () => 0,
      hide_pledges: (u) => u.hidePledges,
      social_connections: socialConnections,
    },
    relationships: {
      campaign: { type: 'campaign', many: false, get: (u, ctx) => ctx.store.campaignsOf(u.id)[0]?.id ?? null },
      memberships: {
        type: 'member',
        many: true,
        get: (u, ctx) => {
          const all = ctx.store.membershipsOf(u.id);
          // spec: User.memberships: only the membership to the token client's creator's campaign,
          // unless the token holds identity.memberships.
          if (ctx.scopes.has('identity.memberships')) return all.map((m) => m.id);
          const owner = ctx.client?.ownerUserId;
          return all.filter((m) => ctx.store.campaigns.get(m.campaignId)?.creatorId === owner).map((m) => m.id);
        },
      },
    },
  });
}

function campaignType(dialect: ServiceDialect): ResourceType {
  const named: Record<string, Getter<CampaignRecord>> = dialect === 'patreon'
    ? { discord_server_id: (c) => c.chatServerId, google_analytics_id: () => null }
    : { chat_server_id: (c) => c.chatServerId, analytics_id: () => null, earnings_visibility: () => 'private' };
  return defineType<CampaignRecord>({
    type: 'campaign',
    find: findCampaign,
    attributes: {
      ...named,
      summary: (c) => c.summary,
      creation_name: (c) => c.creationName,
      pay_per_name: (c) => (c.isMonthly ? 'month' : 'creation'),
      one_liner: () => null,
      main_video_embed: () => null,
      main_video_url: () => null,
      image_url: (c, ctx) => `${ctx.baseUrl}/static/campaigns/${c.id}.png`,
      image_small_url: (c, ctx) => `${ctx.baseUrl}/static/campaigns/${c.id}-small.png`,
      thanks_video_url: () => null,
      thanks_embed: () => null,
      thanks_msg: () => null,
      is_monthly: (c) => c.isMonthly,
      has_rss: () => false,
      has_sent_rss_notify: () => false,
      rss_feed_title: (c) => `${c.vanity ?? c.id} feed`,
      rss_artwork_url: () => null,
      is_nsfw: (c) => c.isNsfw,
      is_charged_immediately: () => true,
      created_at: (c) => iso(c.createdAt),
      published_at: (c) => iso(c.publishedAt),
      pledge_url: (c) => `/checkout/${c.vanity ?? c.id}`,
      patron_count: (c, ctx) => ctx.store.campaignPatronCount(c.id),
      show_earnings: () => false,
      url: campaignUrl,
      vanity: (c) => c.vanity,
    },
    relationships: {
      tiers: { type: 'tier', many: true, get: (c, ctx) => ctx.store.tiersOf(c.id).map((t) => t.id) },
      creator: { type: 'user', many: false, get: (c) => c.creatorId },
      benefits: { type: 'benefit', many: true, get: () => [] },
      goals: { type: 'goal', many: true, get: () => [] },
    },
  });
}

function tierType(dialect: ServiceDialect): ResourceType {
  // A tier made with either record field serves its roles under the dialect's one name.
  const roles: Record<string, Getter<TierRecord>> = dialect === 'patreon'
    ? { discord_role_ids: (t) => t.discordRoleIds ?? t.chatRoleIds }
    : { chat_role_ids: (t) => t.chatRoleIds ?? t.discordRoleIds };
  return defineType<TierRecord>({
    type: 'tier',
    find: findTier,
    attributes: {
      ...roles,
      amount_cents: (t) => t.amountCents,
      user_limit: (t) => t.userLimit,
      remaining: (t, ctx) => (t.userLimit === null ? null : Math.max(0, t.userLimit - ctx.store.tierPatronCount(t.id))),
      description: (t) => t.description,
      requires_shipping: () => false,
      created_at: (t) => iso(t.createdAt),
      url: (t, ctx) => `${ctx.baseUrl}/checkout/${ctx.store.campaigns.get(t.campaignId)?.vanity ?? t.campaignId}?rid=${t.id}`,
      patron_count: (t, ctx) => ctx.store.tierPatronCount(t.id),
      post_count: () => 0,
      title: (t) => t.title,
      image_url: () => null,
      edited_at: (t) => iso(t.editedAt),
      published: (t) => t.published,
      published_at: (t) => iso(t.publishedAt),
      unpublished_at: (t) => iso(t.unpublishedAt),
    },
    relationships: {
      campaign: { type: 'campaign', many: false, get: (t) => t.campaignId },
      benefits: { type: 'benefit', many: true, get: () => [] },
      tier_image: { type: 'media', many: false, get: () => null },
    },
  });
}

/** All attributes of a webhook, as POST and PATCH answer them (spec: v2 webhook endpoints). */
export const WEBHOOK_ATTRIBUTES = ['last_attempted_at', 'num_consecutive_times_failed', 'paused', 'secret', 'triggers', 'uri'] as const;

const webhookType = defineType<WebhookRecord>({
  type: 'webhook',
  find: (ctx, id) => ctx.store.webhooks.get(id),
  attributes: {
    triggers: (w) => [...w.triggers],
    uri: (w) => w.uri,
    paused: (w) => w.paused,
    last_attempted_at: (w) => iso(w.lastAttemptedAt),
    num_consecutive_times_failed: (w) => w.numConsecutiveTimesFailed,
    secret: (w) => w.secret,
  },
  relationships: {
    client: { type: 'oauth_client', many: false, get: (w) => w.clientId },
    campaign: { type: 'campaign', many: false, get: (w) => w.campaignId },
  },
});

function oauthClientType(dialect: ServiceDialect): ResourceType {
  return defineType<OAuthClientRecord>({
    type: 'oauth_client',
    find: (ctx, id) => ctx.store.clients.get(id),
    attributes: {
      ...(dialect === 'patreon' ? { category: () => 'Community' } : {}),
      client_secret: (c) => c.secret,
      name: (c) => c.name,
      description: () => 'A sandbox client',
      author_name: () => null,
      domain: () => null,
      version: () => 2,
      icon_url: () => null,
      privacy_policy_url: () => null,
      tos_url: () => null,
      redirect_uris: (c) => c.redirectUris.join(' '),
      default_scopes: () => '',
    },
    relationships: {
      user: { type: 'user', many: false, get: (c) => c.ownerUserId },
      campaign: { type: 'campaign', many: false, get: (c, ctx) => ctx.store.campaignsOf(c.ownerUserId)[0]?.id ?? null },
    },
  });
}

const postType = defineType<PostRecord>({
  type: 'post',
  find: (ctx, id) => ctx.store.posts.get(id),
  attributes: {
    app_id: () => null,
    app_status: () => null,
    content: (p) => p.content,
    embed_data: () => null,
    embed_url: () => null,
    is_paid: (p) => p.isPaid,
    is_public: (p) => p.isPublic,
    tiers: (p) => [...p.tierIds],
    published_at: (p) => iso(p.publishedAt),
    title: (p) => p.title,
    url: (p, ctx) => `${ctx.baseUrl}/posts/${p.id}`,
  },
  relationships: {
    user: { type: 'user', many: false, get: (p) => p.userId },
    campaign: { type: 'campaign', many: false, get: (p) => p.campaignId },
  },
});
