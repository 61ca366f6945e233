import { notAMember } from './entitlement';
import { type Said, UNSAID, standingFacts } from './reasons';
import { ruleGrants } from './rule-roles';
import type {
  DesiredGrant,
  DesiredRoles,
  Entitlement,
  GrantKind,
  GrantSource,
  GuildContext,
  GuildTier,
  NoteWhy,
  RoleNote,
  RoleProblem,
} from './types';

interface TierRole {
  roleId: string;
  source: GrantSource;
}

/** The roles a tier grants in this guild: its own `chat_role_ids` first, then `/map` rows. */
export function tierRoles(guild: GuildContext, tier: GuildTier): TierRole[] {
  const seen = new Set<string>();
  const out: TierRole[] = [];
  const add = (roleId: string, source: GrantSource) => {
    if (seen.has(roleId)) return;
    seen.add(roleId);
    out.push({ roleId, source });
  };
  for (const roleId of tier.roleIds) add(roleId, 'chat_role_ids');
  for (const row of guild.mappings) {
    if (row.campaignId === tier.campaignId && row.tierId === tier.tierId) add(row.roleId, 'map');
  }
  return out;
}

/**
 * Every role that Tierlink manages in this guild: tier roles of every served campaign (removed
 * tiers included, so their holders can be cleaned up), the former-patron and follower roles.
 * Strict mode removes these from anyone not entitled.
 */
export function managedRoleIds(guild: GuildContext): Set<string> {
  const ids = new Set<string>();
  for (const tier of guild.tiers) for (const { roleId } of tierRoles(guild, tier)) ids.add(roleId);
  for (const row of guild.mappings) ids.add(row.roleId);
  for (const rule of guild.ruleRoles ?? []) ids.add(rule.roleId);
  if (guild.settings.formerPatronRoleId) ids.add(guild.settings.formerPatronRoleId);
  if (guild.settings.followerRoleId) ids.add(guild.settings.followerRoleId);
  return ids;
}

/** A free tier: nothing is paid for it (Patreon's free membership; docs/patreon-api-notes.md §3.4). */
export function isFreeTier(tier: Pick<GuildTier, 'amountCents'>): boolean {
  return tier.amountCents === 0;
}

/**
 * The roles free tiers grant in this guild (removed tiers left out): what `freeTiersGrantRoles`
 * decides, so turning it off or on takes away or gives exactly these.
 */
export function freeTierRoleIds(guild: GuildContext): Set<string> {
  const ids = new Set<string>();
  for (const tier of guild.tiers) {
    if (tier.removed || !isFreeTier(tier)) continue;
    for (const { roleId } of tierRoles(guild, tier)) ids.add(roleId);
  }
  return ids;
}

/**
 * A free member of the campaign: one who follows it (the spec's `is_follower`), or one whose only
 * entitled tiers are free ones (Patreon replaced following with free membership, and its
 * `is_follower` is always false). The follower role is theirs.
 */
function isFreeMember(guild: GuildContext, ent: Entitlement): boolean {
  if (ent.unreadable) return false;
  if (ent.kind === 'follower') return true;
  if (ent.kind !== 'active' || ent.tierIds.length === 0) return false;
  return ent.tierIds.every((id) => {
    const tier = guild.tiers.find((t) => t.campaignId === ent.campaignId && t.tierId === id);
    return tier !== undefined && isFreeTier(tier);
  });
}

/**
 * Entitled tiers that still exist (free ones only where the guild lets free tiers grant roles), with
 * a note for each other pushed to `notes` (null: without the words, no notes).
 */
function knownTiers(guild: GuildContext, ent: Entitlement, notes: RoleNote[] | null): GuildTier[] {
  const known: GuildTier[] = [];
  for (const tierId of ent.tierIds) {
    const tier = guild.tiers.find((t) => t.campaignId === ent.campaignId && t.tierId === tierId);
    if (!tier || tier.removed) {
      notes?.push({
        roleId: '',
        roleName: null,
        campaignId: ent.campaignId,
        tierId,
        reason: `tier ${tier?.title ?? tierId} no longer exists on the campaign`,
        fix: null,
        why: { kind: 'tier_gone', tier: tier?.title ?? tierId },
      });
    } else if (isFreeTier(tier) && guild.settings.freeTiersGrantRoles === false) {
      notes?.push({
        roleId: '',
        roleName: null,
        campaignId: ent.campaignId,
        tierId,
        reason: `${tier.title} is a free tier, and free tiers grant no role in this server`,
        fix: 'Let free tiers grant their roles with /settings',
        why: { kind: 'free_tier', tier: tier.title },
      });
    } else {
      known.push(tier);
    }
  }
  return known;
}

/**
 * Which entitled tiers grant roles: all of them (`stack`), or in `highest` mode only the
 * highest-priced of each campaign, whichever source entitles to it (ties all kept).
 */
function grantingPairs(guild: GuildContext, pairs: Array<{ tier: GuildTier; ent: Entitlement }>) {
  if (guild.settings.mode === 'stack') return pairs;
  const top = new Map<string, number>();
  for (const { tier } of pairs) top.set(tier.campaignId, Math.max(top.get(tier.campaignId) ?? -1, tier.amountCents));
  return pairs.filter(({ tier }) => tier.amountCents === top.get(tier.campaignId));
}

/** The order entitlements are attributed in: confirmed before unconfirmed, active before grace. */
function attributionOrder(a: Entitlement, b: Entitlement): number {
  const rank = (e: Entitlement) => (e.unconfirmed ? 2 : 0) + (e.kind === 'grace' ? 1 : 0);
  return rank(a) - rank(b);
}

function tierGrantSaid(tier: GuildTier, ent: Entitlement): Said {
  return { reason: `${tier.title} tier (${ent.reason})`, why: { code: 'tier', tier: tier.title, standing: standingFacts(ent) } };
}

/**
 * The roles a user should hold in a guild, given their entitlement in each campaign the guild
 * serves, and a note for each mapped role they do not get.
 *
 * Roles missing from the guild are never desired (they are noted). Roles the bot cannot manage
 * are desired all the same; the planner blocks them with the fix, so `/status` and `/doctor` can
 * say what to change.
 *
 * `words: false` decides the same grants without their words: no reason, no note (the full sync
 * plans every member so, and words only those with something to do; see `decideUser`). Every
 * decision below is taken whatever `words` says; only the sentences and notes depend on it.
 */
export function desiredRoles(
  entitlements: readonly Entitlement[],
  guild: GuildContext,
  options: { joiner?: boolean; now?: Date; words?: boolean } = {},
): DesiredRoles {
  const words = options.words !== false;
  const grants = new Map<string, DesiredGrant>();
  const notes: RoleNote[] = [];
  const noted = words ? notes : null;
  // Loops rather than chains of arrays: the full sync runs this for every member it knows.
  const served: Entitlement[] = [];
  for (const e of entitlements) if (guild.campaignIds.includes(e.campaignId)) served.push(e);
  for (const id of guild.campaignIds) if (!hasCampaign(entitlements, id)) served.push(notAMember(id));
  if (served.length > 1) served.sort(attributionOrder);

  const grant = (
    roleId: string,
    kind: GrantKind,
    ent: Entitlement,
    tierId: string | null,
    source: GrantSource,
    { reason, why }: Said,
    heldBy?: RoleProblem,
  ) => {
    const held = grants.get(roleId);
    if (held) {
      // Any justification its connector's limit does not hold makes the role grantable.
      if (!heldBy) delete held.held;
      if (ent.source && !held.sources.includes(ent.source)) held.sources = [...held.sources, ent.source];
      if (reason !== held.reason && !held.alsoBecause.includes(reason)) {
        held.alsoBecause = [...held.alsoBecause, reason];
        held.alsoWhy = [...held.alsoWhy, why];
      }
      held.confirmed ||= !ent.unconfirmed;
      return;
    }
    grants.set(roleId, {
      roleId,
      roleName: guild.roles.get(roleId)!.name,
      kind,
      campaignId: ent.campaignId,
      tierId,
      source,
      reason,
      why,
      alsoBecause: [],
      alsoWhy: [],
      sources: ent.source ? [ent.source] : [],
      confirmed: !ent.unconfirmed,
      ...(heldBy ? { held: heldBy } : {}),
    });
  };

  const pairs: Array<{ tier: GuildTier; ent: Entitlement }> = [];
  for (const ent of served) {
    if (ent.kind !== 'active' && ent.kind !== 'grace') continue;
    const tiers = knownTiers(guild, ent, noted);
    // Higher tiers first, so a role two tiers share is attributed to the higher one.
    for (const tier of tiers.sort((a, b) => b.amountCents - a.amountCents)) pairs.push({ tier, ent });
  }
  // Only the notes read it.
  const grantedTierKeys = words ? new Set<string>() : null;
  for (const { tier, ent } of grantingPairs(guild, pairs)) {
    grantedTierKeys?.add(`${tier.campaignId}/${tier.tierId}`);
    const roles = tierRoles(guild, tier);
    if (roles.length === 0) {
      noted?.push({
        roleId: '',
        roleName: null,
        campaignId: tier.campaignId,
        tierId: tier.tierId,
        reason: `${tier.title} tier grants no role in this server`,
        fix: `Map one with /map tier:${tier.title} role:<role>`,
        why: { kind: 'no_role', tier: tier.title },
      });
    }
    for (const { roleId, source } of roles) {
      if (!guild.roles.has(roleId)) {
        noted?.push({
          roleId,
          roleName: null,
          campaignId: tier.campaignId,
          tierId: tier.tierId,
          reason: `role ${roleId} of the ${tier.title} tier (from ${source === 'map' ? '/map' : 'chat_role_ids'}) does not exist in this server`,
          fix:
            source === 'map'
              ? `Remove it with /unmap, or map an existing role`
              : `Update the tier's Discord role on the service, or map a role with /map`,
          why: { kind: 'role_missing' },
        });
        continue;
      }
      const heldBy = source === 'chat_role_ids' ? tier.held?.get(roleId) : undefined;
      grant(roleId, 'tier', ent, tier.tierId, source, words ? tierGrantSaid(tier, ent) : UNSAID, heldBy);
    }
  }

  if (options.now) {
    for (const met of ruleGrants(guild, served, options.now, words)) {
      const { roleId } = met.rule;
      if (!guild.roles.has(roleId)) {
        noted?.push({
          roleId,
          roleName: null,
          campaignId: null,
          tierId: null,
          reason: `the ${met.rule.kind} role ${roleId} does not exist in this server`,
          fix: 'Choose another role with /settings',
          why: { kind: 'role_missing' },
        });
        continue;
      }
      grant(roleId, met.rule.kind, met.entitlement, null, 'rule', met);
    }
  }

  // Roles of paid tiers: a free member's free-tier roles do not keep the follower role away.
  let hasPaidTierRoles = false;
  let hasTierRoles = false;
  for (const g of grants.values()) {
    if (g.kind === 'tier') hasTierRoles = true;
    if (!hasPaidTierRoles) {
      const tier = guild.tiers.find((t) => t.campaignId === g.campaignId && t.tierId === g.tierId);
      hasPaidTierRoles = tier === undefined || !isFreeTier(tier);
    }
  }
  const { formerPatronRoleId, followerRoleId } = guild.settings;
  if (grants.size === 0 && formerPatronRoleId) {
    const former = served.find((e) => e.kind === 'former' || e.kind === 'lapsed');
    if (former)
      addSettingRole(
        guild,
        grants,
        noted,
        formerPatronRoleId,
        'former',
        former.campaignId,
        words ? { reason: `former patron (${former.reason})`, why: { code: 'formerRole', standing: standingFacts(former) } } : UNSAID,
      );
  }
  if (!hasPaidTierRoles && followerRoleId && !grants.has(followerRoleId)) {
    const follower = served.find((e) => isFreeMember(guild, e));
    if (follower) {
      const follows = follower.kind === 'follower';
      addSettingRole(
        guild,
        grants,
        noted,
        followerRoleId,
        'follower',
        follower.campaignId,
        words
          ? follows
            ? { reason: 'follows the campaign without pledging', why: { code: 'followerRole' } }
            : { reason: 'free member of the campaign', why: { code: 'freeMemberRole' } }
          : UNSAID,
      );
    }
  }
  // The joiner role stays with whoever joined through the join page while no tier gives them a role.
  const joinerRoleId = guild.settings.joinerRoleId ?? null;
  if (options.joiner && joinerRoleId && !hasTierRoles && !grants.has(joinerRoleId)) {
    addSettingRole(
      guild,
      grants,
      noted,
      joinerRoleId,
      'joiner',
      null,
      words ? { reason: 'joined through the join page without a tier role', why: { code: 'joinerRole' } } : UNSAID,
    );
  }

  if (grantedTierKeys) notes.push(...notesForMappedRolesNotGranted(guild, served, grants, grantedTierKeys));
  return { grants, notes };
}

function hasCampaign(entitlements: readonly Entitlement[], campaignId: string): boolean {
  for (const e of entitlements) if (e.campaignId === campaignId) return true;
  return false;
}

/** Every reason a role is held, the first one first: "Gold tier (active patron); also Gold tier (comp until 2026-12-31)". */
export function grantReason(grant: Pick<DesiredGrant, 'reason' | 'alsoBecause'>): string {
  return [grant.reason, ...grant.alsoBecause].join('; also ');
}

/** How people read each kind of setting role. */
export const SETTING_ROLE_LABEL = { former: 'former-patron', follower: 'follower', joiner: 'joiner' } as const;

function addSettingRole(
  guild: GuildContext,
  grants: Map<string, DesiredGrant>,
  notes: RoleNote[] | null,
  roleId: string,
  kind: 'former' | 'follower' | 'joiner',
  campaignId: string | null,
  { reason, why }: Said,
): void {
  const role = guild.roles.get(roleId);
  const label = SETTING_ROLE_LABEL[kind];
  if (!role) {
    notes?.push({
      roleId,
      roleName: null,
      campaignId,
      tierId: null,
      reason: `the ${label} role ${roleId} does not exist in this server`,
      fix: `Choose another ${label} role with /settings`,
      why: { kind: 'role_missing' },
    });
    return;
  }
  grants.set(roleId, {
    roleId,
    roleName: role.name,
    kind,
    campaignId,
    tierId: null,
    source: 'setting',
    reason,
    why,
    alsoBecause: [],
    alsoWhy: [],
    sources: [],
    confirmed: true,
  });
}

function notesForMappedRolesNotGranted(
  guild: GuildContext,
  served: readonly Entitlement[],
  grants: ReadonlyMap<string, DesiredGrant>,
  grantedTierKeys: ReadonlySet<string>,
): RoleNote[] {
  const notes: RoleNote[] = [];
  const noted = new Set<string>();
  for (const tier of guild.tiers) {
    if (tier.removed) continue;
    const ent = served.find((e) => e.campaignId === tier.campaignId);
    if (!ent) continue;
    for (const { roleId } of tierRoles(guild, tier)) {
      if (grants.has(roleId) || noted.has(roleId) || !guild.roles.has(roleId)) continue;
      noted.add(roleId);
      let reason: string;
      let why: NoteWhy;
      if (ent.kind === 'active' || ent.kind === 'grace') {
        const highestOnly = ent.tierIds.includes(tier.tierId) && !grantedTierKeys.has(`${tier.campaignId}/${tier.tierId}`);
        reason = highestOnly
          ? `only the highest tier's roles are granted in this server (mode highest)`
          : `${tier.title} is not one of your tiers`;
        why = highestOnly ? { kind: 'highest_only' } : { kind: 'not_your_tier', tier: tier.title };
      } else {
        reason = `${tier.title} tier: ${ent.reason}`;
        why = { kind: 'standing', tier: tier.title, entitlement: ent };
      }
      notes.push({
        roleId,
        roleName: guild.roles.get(roleId)?.name ?? null,
        campaignId: tier.campaignId,
        tierId: tier.tierId,
        reason,
        fix: null,
        why,
      });
    }
  }
  return notes;
}
