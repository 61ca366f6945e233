import { DEFAULT_SETTINGS, entitlement, notAMember } from '../../../src/core/planner';
import type {
  Entitlement,
  GrantKind,
  GuildContext,
  GuildSettings,
  GuildTier,
  LedgerEntry,
  MemberState,
  RoleProblem,
} from '../../../src/core/planner';
import { type PatreonMemberRead, patreonMemberState } from '../../../src/edges/outbound/patreon/member-standing';

export const GUILD = '100000000000000001';
export const USER = '200000000000000001';
export const CAMPAIGN = '5001';
export const OTHER_CAMPAIGN = '5002';

export const ROLE = {
  bronze: '300000000000000001',
  silver: '300000000000000002',
  gold: '300000000000000003',
  goldExtra: '300000000000000004',
  former: '300000000000000005',
  follower: '300000000000000006',
  art: '300000000000000007',
  aboveBot: '300000000000000008',
  ghost: '300000000000000009',
  staff: '300000000000000010',
  free: '300000000000000011',
} as const;

export const TIER = {
  bronze: 't-bronze',
  silver: 't-silver',
  gold: 't-gold',
  gold2: 't-gold2',
  art: 't-art',
  old: 't-old',
  free: 't-free',
} as const;

/** Patreon's free membership tier (amount 0), mapped to the Free role; not among the default tiers. */
export const FREE_TIER: GuildTier = {
  campaignId: CAMPAIGN,
  tierId: TIER.free,
  title: 'Free',
  amountCents: 0,
  roleIds: [ROLE.free],
  removed: false,
};

export const NOW = new Date('2026-11-20T12:00:00Z');

export const DEFAULT_GUILD_SETTINGS: GuildSettings = { ...DEFAULT_SETTINGS };

/** A Patreon read of a member (Gold, paid on 2 November unless overridden). */
export function patreonRead(overrides: Partial<PatreonMemberRead> = {}): PatreonMemberRead {
  return {
    campaignId: CAMPAIGN,
    patronStatus: 'active_patron',
    lastChargeDate: new Date('2026-11-02T10:00:00Z'),
    lastChargeStatus: 'Paid',
    isFollower: false,
    entitledTierIds: [TIER.gold],
    lastActiveTierIds: [TIER.gold],
    firstDeclinedAt: null,
    ...overrides,
  };
}

/**
 * The planner's member state of a Patreon member: most planner tests speak of patrons as Patreon
 * describes them, turned into the planner's words by the Patreon adapter (member-standing.ts).
 */
export function member(overrides: Partial<PatreonMemberRead> = {}): MemberState {
  return patreonMemberState(patreonRead(overrides));
}

/** A member state in the planner's own words (a comp, a Ko-fi subscription…): entitled to Gold unless overridden. */
export function state(overrides: Partial<MemberState> = {}): MemberState {
  return {
    source: 'test',
    campaignId: CAMPAIGN,
    memberId: null,
    readAt: null,
    standing: 'entitled',
    basis: 'pledge',
    tierIds: [TIER.gold],
    failedSince: null,
    until: null,
    graceAfterUntil: false,
    since: null,
    amount: null,
    isFollower: false,
    detail: 'entitled',
    ...overrides,
  };
}

/** The entitlement of one campaign as planUser computes it: from the member's state, or "not a member". */
export function entitlementOf(
  campaignId: string,
  member: MemberState | null,
  settings: Pick<GuildSettings, 'graceDays'>,
  now: Date,
): Entitlement {
  return member ? entitlement({ ...member, campaignId }, settings, now) : notAMember(campaignId);
}

export const ABOVE_BOT: RoleProblem = {
  message: 'Above Bot is above the Tierlink role',
  fix: 'Move the Tierlink role above Above Bot in Server Settings → Roles',
};

export function tiers(): GuildTier[] {
  return [
    { campaignId: CAMPAIGN, tierId: TIER.bronze, title: 'Bronze', amountCents: 300, roleIds: [ROLE.bronze], removed: false },
    { campaignId: CAMPAIGN, tierId: TIER.silver, title: 'Silver', amountCents: 500, roleIds: [ROLE.silver], removed: false },
    { campaignId: CAMPAIGN, tierId: TIER.gold, title: 'Gold', amountCents: 1000, roleIds: [ROLE.gold], removed: false },
    { campaignId: CAMPAIGN, tierId: TIER.gold2, title: 'Gold (annual)', amountCents: 1000, roleIds: [ROLE.goldExtra], removed: false },
    { campaignId: CAMPAIGN, tierId: TIER.old, title: 'Old', amountCents: 200, roleIds: [ROLE.bronze], removed: true },
    { campaignId: OTHER_CAMPAIGN, tierId: TIER.art, title: 'Art Club', amountCents: 400, roleIds: [ROLE.art], removed: false },
  ];
}

export function guild(overrides: { settings?: Partial<GuildSettings> } & Partial<Omit<GuildContext, 'settings'>> = {}): GuildContext {
  const names: Record<string, string> = {
    [ROLE.bronze]: 'Bronze',
    [ROLE.silver]: 'Silver',
    [ROLE.gold]: 'Gold',
    [ROLE.goldExtra]: 'Gold Extra',
    [ROLE.former]: 'Alumni',
    [ROLE.follower]: 'Follower',
    [ROLE.art]: 'Art',
    [ROLE.aboveBot]: 'Above Bot',
    [ROLE.staff]: 'Staff',
    [ROLE.free]: 'Free',
  };
  const roles = new Map(
    Object.entries(names).map(([id, name]) => [id, { id, name, problem: id === ROLE.aboveBot ? ABOVE_BOT : null, dangerous: false }]),
  );
  const { settings, ...rest } = overrides;
  return {
    guildId: GUILD,
    settings: { ...DEFAULT_SETTINGS, ...settings },
    campaignIds: [CAMPAIGN],
    tiers: tiers(),
    mappings: [],
    roles,
    ...rest,
  };
}

/** Ledger rows of the user; recorded a month before {@link NOW} unless a time is given. */
export function ledger(...entries: Array<[string, string | null, string | null, GrantKind?, Date?]>): LedgerEntry[] {
  return entries.map(([roleId, campaignId, tierId, kind, recordedAt]) => ({
    roleId,
    campaignId,
    tierId,
    kind: kind ?? 'tier',
    recordedAt: recordedAt ?? new Date(NOW.getTime() - 30 * 86_400_000),
  }));
}
