import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../support/clock';
import type { ServiceDialect } from './dialect';
import { chargeStatusesOf } from './dialect';
import type {
  AuthorizationCodeRecord,
  CampaignRecord,
  CreateCampaignInput,
  CreateTierInput,
  CreateUserInput,
  DateInput,
  MemberRecord,
  MembershipInput,
  OAuthClientRecord,
  PendingAuthorization,
  PostRecord,
  TierRecord,
  TokenPair,
  TokenRecord,
  UserRecord,
  WebhookRecord,
} from './types';

/** Members of one campaign in listing order, indexed for O(log n) cursor seeks. */
export interface CampaignMembers {
  /** Live (not deleted) members sorted by `seq`. */
  order: MemberRecord[];
  byUser: Map<string, MemberRecord>;
  activePatrons: number;
}

/** Access tokens last 31 days, like production's `expires_in` of 2678400 (spec: Authentication §5). */
export const DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS = 31 * 24 * 3600;

export type Store = ReturnType<typeof createStore>;

export function createStore(clock: Clock, options: { accessTokenLifetimeSeconds?: number; dialect?: ServiceDialect } = {}) {
  const lifetimeSeconds = options.accessTokenLifetimeSeconds ?? DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS;
  const dialect = options.dialect ?? 'spec';
  const chargeStatuses: readonly string[] = chargeStatusesOf(dialect);
  const counters = { user: 1_000_000, campaign: 5_000_000, tier: 7_000_000, webhook: 900_000, post: 3_000_000, seq: 0 };

  const users = new Map<string, UserRecord>();
  const campaigns = new Map<string, CampaignRecord>();
  const tiers = new Map<string, TierRecord>();
  const members = new Map<string, MemberRecord>();
  const posts = new Map<string, PostRecord>();
  const clients = new Map<string, OAuthClientRecord>();
  const tokens = new Map<string, TokenRecord>();
  const codes = new Map<string, AuthorizationCodeRecord>();
  const pendingAuthorizations = new Map<string, PendingAuthorization>();
  const webhooks = new Map<string, WebhookRecord>();
  /** Attributes served verbatim for a resource (`type:id`), whatever its record says (an "odd member", a tier without a title). */
  const attributeOverrides = new Map<string, Record<string, unknown>>();
  /** Attributes a resource (`type:id`) is served without, even when asked for (a value the service stopped sending). */
  const omittedAttributes = new Map<string, Set<string>>();

  const membersByCampaign = new Map<string, CampaignMembers>();
  const membershipsByUser = new Map<string, Set<string>>();
  const tiersByCampaign = new Map<string, string[]>();
  const tierPatronCounts = new Map<string, number>();

  const secret = (bytes = 24): string => randomBytes(bytes).toString('base64url');

  function campaignMembers(campaignId: string): CampaignMembers {
    let entry = membersByCampaign.get(campaignId);
    if (!entry) {
      entry = { order: [], byUser: new Map(), activePatrons: 0 };
      membersByCampaign.set(campaignId, entry);
    }
    return entry;
  }

  function countMember(member: MemberRecord, delta: 1 | -1): void {
    if (member.patronStatus !== 'active_patron') return;
    campaignMembers(member.campaignId).activePatrons += delta;
    for (const tierId of member.tierIds) tierPatronCounts.set(tierId, (tierPatronCounts.get(tierId) ?? 0) + delta);
  }

  function toDate(value: DateInput | undefined, fallback: Date | null): Date | null {
    if (value === undefined) return fallback;
    if (value === null) return null;
    const date = value instanceof Date ? new Date(value.getTime()) : new Date(value);
    if (Number.isNaN(date.getTime())) throw new Error(`not a date: ${String(value)}`);
    return date;
  }

  function requireCampaign(campaignId: string): CampaignRecord {
    const campaign = campaigns.get(campaignId);
    if (!campaign) throw new Error(`no campaign ${campaignId}`);
    return campaign;
  }

  function checkTiers(campaignId: string, tierIds: readonly string[]): void {
    for (const tierId of tierIds) {
      const tier = tiers.get(tierId);
      if (!tier || tier.campaignId !== campaignId) throw new Error(`tier ${tierId} is not a tier of campaign ${campaignId}`);
    }
  }

  /** A dialect holds only its own charge statuses (the spec's seven, or Patreon's ten). */
  function checkChargeStatus(status: MembershipInput['lastChargeStatus']): void {
    if (status !== undefined && status !== null && !chargeStatuses.includes(status))
      throw new Error(`last_charge_status ${status} is not a value of the ${dialect} dialect`);
  }

  function amountOf(tierIds: readonly string[]): number {
    let sum = 0;
    for (const id of tierIds) sum += tiers.get(id)?.amountCents ?? 0;
    return sum;
  }

  function linkMember(member: MemberRecord): void {
    members.set(member.id, member);
    const entry = campaignMembers(member.campaignId);
    entry.order.push(member);
    entry.byUser.set(member.userId, member);
    let set = membershipsByUser.get(member.userId);
    if (!set) {
      set = new Set();
      membershipsByUser.set(member.userId, set);
    }
    set.add(member.id);
    countMember(member, 1);
  }

  return {
    clock,
    accessTokenLifetimeSeconds: lifetimeSeconds,
    users,
    campaigns,
    tiers,
    members,
    posts,
    clients,
    tokens,
    codes,
    pendingAuthorizations,
    webhooks,
    attributeOverrides,
    omittedAttributes,
    dialect,
    secret,
    campaignMembers,

    nextWebhookId: (): string => String(++counters.webhook),

    createUser(input: CreateUserInput): UserRecord {
      const id = String(++counters.user);
      const [first, ...rest] = input.fullName.split(' ');
      const user: UserRecord = {
        id,
        fullName: input.fullName,
        firstName: input.firstName !== undefined ? input.firstName : (first ?? null),
        lastName: input.lastName !== undefined ? input.lastName : rest.length > 0 ? rest.join(' ') : null,
        email: input.email ?? `user${id}@example.test`,
        vanity: input.vanity ?? null,
        about: null,
        discordUserId: input.discordUserId ?? null,
        hidePledges: input.hidePledges ?? false,
        createdAt: clock.now(),
      };
      users.set(id, user);
      return user;
    },

    createCampaign(creatorId: string, input: CreateCampaignInput = {}): CampaignRecord {
      if (!users.has(creatorId)) throw new Error(`no user ${creatorId}`);
      const id = String(++counters.campaign);
      const now = clock.now();
      const campaign: CampaignRecord = {
        id,
        creatorId,
        vanity: input.vanity !== undefined ? input.vanity : `creator${id}`,
        summary: input.summary ?? null,
        creationName: input.creationName ?? 'things',
        isMonthly: input.isMonthly ?? true,
        isNsfw: false,
        chatServerId: input.chatServerId ?? null,
        createdAt: now,
        publishedAt: now,
      };
      campaigns.set(id, campaign);
      tiersByCampaign.set(id, []);
      return campaign;
    },

    createTier(campaignId: string, input: CreateTierInput): TierRecord {
      requireCampaign(campaignId);
      const id = String(++counters.tier);
      const now = clock.now();
      const published = input.published ?? true;
      const tier: TierRecord = {
        id,
        campaignId,
        title: input.title,
        description: input.description ?? '',
        amountCents: input.amountCents,
        published,
        chatRoleIds: input.chatRoleIds ?? null,
        discordRoleIds: input.discordRoleIds ?? null,
        userLimit: input.userLimit ?? null,
        createdAt: now,
        editedAt: now,
        publishedAt: published ? now : null,
        unpublishedAt: null,
        deleted: false,
      };
      tiers.set(id, tier);
      tiersByCampaign.get(campaignId)?.push(id);
      return tier;
    },

    /** The creator changes how the campaign charges (Patreon's "per month" or "per creation"). */
    updateCampaign(campaignId: string, patch: { isMonthly?: boolean }): CampaignRecord {
      const campaign = campaigns.get(campaignId);
      if (!campaign) throw new Error(`no campaign ${campaignId}`);
      if (patch.isMonthly !== undefined) campaign.isMonthly = patch.isMonthly;
      return campaign;
    },

    updateTier(tierId: string, patch: Partial<CreateTierInput>): TierRecord {
      const tier = tiers.get(tierId);
      if (!tier || tier.deleted) throw new Error(`no tier ${tierId}`);
      const now = clock.now();
      if (patch.title !== undefined) tier.title = patch.title;
      if (patch.description !== undefined) tier.description = patch.description;
      if (patch.amountCents !== undefined) tier.amountCents = patch.amountCents;
      if (patch.chatRoleIds !== undefined) tier.chatRoleIds = patch.chatRoleIds;
      if (patch.discordRoleIds !== undefined) tier.discordRoleIds = patch.discordRoleIds;
      if (patch.userLimit !== undefined) tier.userLimit = patch.userLimit;
      if (patch.published !== undefined && patch.published !== tier.published) {
        tier.published = patch.published;
        if (patch.published) tier.publishedAt = now;
        else tier.unpublishedAt = now;
      }
      tier.editedAt = now;
      return tier;
    },

    /** A deleted tier disappears from campaigns and from `currently_entitled_tiers` (docs/patreon-api-notes.md §10). */
    deleteTier(tierId: string): void {
      const tier = tiers.get(tierId);
      if (!tier) throw new Error(`no tier ${tierId}`);
      tier.deleted = true;
      const list = tiersByCampaign.get(tier.campaignId);
      if (list)
        tiersByCampaign.set(
          tier.campaignId,
          list.filter((id) => id !== tierId),
        );
    },

    tiersOf(campaignId: string): TierRecord[] {
      const out: TierRecord[] = [];
      for (const id of tiersByCampaign.get(campaignId) ?? []) {
        const tier = tiers.get(id);
        if (tier && !tier.deleted) out.push(tier);
      }
      return out;
    },

    liveTierIds(member: MemberRecord): string[] {
      return member.tierIds.filter((id) => tiers.get(id)?.deleted === false);
    },

    tierPatronCount: (tierId: string): number => tierPatronCounts.get(tierId) ?? 0,
    campaignPatronCount: (campaignId: string): number => campaignMembers(campaignId).activePatrons,

    campaignsOf(userId: string): CampaignRecord[] {
      const out: CampaignRecord[] = [];
      for (const campaign of campaigns.values()) if (campaign.creatorId === userId) out.push(campaign);
      return out;
    },

    membershipsOf(userId: string): MemberRecord[] {
      const out: MemberRecord[] = [];
      for (const id of membershipsByUser.get(userId) ?? []) {
        const member = members.get(id);
        if (member && !member.deleted) out.push(member);
      }
      return out;
    },

    /**
     * Creates or changes the membership of a user in a campaign. A user has at most one live
     * member per campaign; after a delete a new member (new id) is created (spec: Triggers,
     * `members:create` "may fire more than once per patron").
     */
    upsertMember(userId: string, campaignId: string, input: MembershipInput): { member: MemberRecord; created: boolean } {
      if (!users.has(userId)) throw new Error(`no user ${userId}`);
      requireCampaign(campaignId);
      if (input.tierIds) checkTiers(campaignId, input.tierIds);
      checkChargeStatus(input.lastChargeStatus);
      const existing = campaignMembers(campaignId).byUser.get(userId);
      const now = clock.now();
      if (existing) {
        countMember(existing, -1);
        const m = existing;
        if (input.patronStatus !== undefined) m.patronStatus = input.patronStatus;
        if (input.tierIds !== undefined) m.tierIds = [...input.tierIds];
        if (input.isFollower !== undefined) m.isFollower = input.isFollower;
        if (input.isFreeTrial !== undefined) m.isFreeTrial = input.isFreeTrial;
        if (input.isGifted !== undefined) m.isGifted = input.isGifted;
        m.lastChargeDate = toDate(input.lastChargeDate, m.lastChargeDate);
        if (input.lastChargeStatus !== undefined) m.lastChargeStatus = input.lastChargeStatus;
        m.nextChargeDate = toDate(input.nextChargeDate, m.nextChargeDate);
        m.pledgeRelationshipStart = toDate(input.pledgeRelationshipStart, m.pledgeRelationshipStart);
        if (input.currentlyEntitledAmountCents !== undefined) m.currentlyEntitledAmountCents = input.currentlyEntitledAmountCents;
        else if (input.tierIds !== undefined) m.currentlyEntitledAmountCents = amountOf(m.tierIds);
        if (input.willPayAmountCents !== undefined) m.willPayAmountCents = input.willPayAmountCents;
        else if (input.tierIds !== undefined) m.willPayAmountCents = amountOf(m.tierIds);
        if (input.lifetimeSupportCents !== undefined) m.lifetimeSupportCents = input.lifetimeSupportCents;
        if (input.campaignLifetimeSupportCents !== undefined) m.campaignLifetimeSupportCents = input.campaignLifetimeSupportCents;
        if (input.pledgeCadence !== undefined) m.pledgeCadence = input.pledgeCadence;
        if (input.note !== undefined) m.note = input.note;
        countMember(m, 1);
        return { member: m, created: false };
      }
      const tierIds = [...(input.tierIds ?? [])];
      const patronStatus = input.patronStatus !== undefined ? input.patronStatus : 'active_patron';
      const pledged = patronStatus !== null;
      const sum = amountOf(tierIds);
      // Patreon's webhook sample shows null for a member who never pledged (docs/patreon-api-notes.md §3.3).
      const amount =
        input.currentlyEntitledAmountCents !== undefined
          ? input.currentlyEntitledAmountCents
          : !pledged && dialect === 'patreon' && tierIds.length === 0
            ? null
            : sum;
      const lifetime = input.lifetimeSupportCents ?? (pledged ? (amount ?? 0) : 0);
      const member: MemberRecord = {
        id: randomUUID(),
        seq: ++counters.seq,
        userId,
        campaignId,
        patronStatus,
        tierIds,
        isFollower: input.isFollower ?? false,
        isFreeTrial: input.isFreeTrial ?? false,
        isGifted: input.isGifted ?? false,
        lastChargeDate: toDate(input.lastChargeDate, pledged ? now : null),
        lastChargeStatus: input.lastChargeStatus !== undefined ? input.lastChargeStatus : pledged ? 'Paid' : null,
        nextChargeDate: toDate(input.nextChargeDate, null),
        pledgeRelationshipStart: toDate(input.pledgeRelationshipStart, pledged ? now : null),
        currentlyEntitledAmountCents: amount,
        willPayAmountCents: input.willPayAmountCents ?? amount ?? 0,
        lifetimeSupportCents: lifetime,
        campaignLifetimeSupportCents: input.campaignLifetimeSupportCents ?? lifetime,
        pledgeCadence: input.pledgeCadence !== undefined ? input.pledgeCadence : pledged || dialect === 'spec' ? 1 : null,
        note: input.note ?? '',
        deleted: false,
      };
      linkMember(member);
      return { member, created: true };
    },

    /** Bulk path for the generator: the record is complete and its tiers already checked. */
    insertMember(member: Omit<MemberRecord, 'seq'>): MemberRecord {
      const record = member as MemberRecord;
      record.seq = ++counters.seq;
      linkMember(record);
      return record;
    },

    checkTiers,

    deleteMember(memberId: string): MemberRecord {
      const member = members.get(memberId);
      if (!member || member.deleted) throw new Error(`no member ${memberId}`);
      countMember(member, -1);
      member.deleted = true;
      const entry = campaignMembers(member.campaignId);
      const index = lowerBound(entry.order, member.seq);
      if (entry.order[index] === member) entry.order.splice(index, 1);
      if (entry.byUser.get(member.userId) === member) entry.byUser.delete(member.userId);
      membershipsByUser.get(member.userId)?.delete(member.id);
      return member;
    },

    createPost(campaignId: string, userId: string, post: Omit<PostRecord, 'id' | 'campaignId' | 'userId'>): PostRecord {
      const record: PostRecord = { id: String(++counters.post), campaignId, userId, ...post };
      posts.set(record.id, record);
      return record;
    },

    createClient(ownerUserId: string, redirectUris: string[]): OAuthClientRecord {
      const client: OAuthClientRecord = {
        id: secret(24),
        secret: secret(32),
        name: 'Tierlink sandbox client',
        ownerUserId,
        redirectUris: [...redirectUris],
      };
      clients.set(client.id, client);
      return client;
    },

    /**
     * The scopes of a user's current grant to a client: those of the access token issued last and not
     * revoked (an authorization, or the refresh that carried it on), or none.
     */
    grantedScopes(clientId: string, userId: string): ReadonlySet<string> {
      let scopes: string[] | null = null;
      for (const token of tokens.values()) {
        if (token.kind === 'access' && !token.revoked && token.clientId === clientId && token.userId === userId) scopes = token.scopes;
      }
      return new Set(scopes ?? []);
    },

    /** Issues an access + refresh token pair; `expires_in` is in seconds (spec leaves the unit open, §10). */
    issueTokens(clientId: string, userId: string, scopes: readonly string[]): TokenPair {
      const access = secret(32);
      const refresh = secret(32);
      const expiresAt = new Date(clock.now().getTime() + lifetimeSeconds * 1000);
      tokens.set(access, {
        value: access,
        kind: 'access',
        clientId,
        userId,
        scopes: [...scopes],
        expiresAt,
        revoked: false,
        partner: refresh,
      });
      tokens.set(refresh, {
        value: refresh,
        kind: 'refresh',
        clientId,
        userId,
        scopes: [...scopes],
        expiresAt: null,
        revoked: false,
        partner: access,
      });
      return { accessToken: access, refreshToken: refresh, expiresIn: lifetimeSeconds, scopes: [...scopes] };
    },
  };
}

/** Index of the first member whose seq is >= `seq` (the order is sorted by seq). */
export function lowerBound(order: readonly MemberRecord[], seq: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((order[mid]?.seq ?? Infinity) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
