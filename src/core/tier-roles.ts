import { isSnowflake } from './snowflake';
import type { GuildTier } from './planner/types';

/**
 * The Discord roles a tier grants, from its `chat_role_ids` (spec: Tier) and Patreon's
 * `discord_role_ids` (an array of id strings, or null; docs/patreon-api-notes.md §4). `everywhere`
 * applies in every guild the campaign serves; `byGuild` holds roles meant for one guild only.
 */
export interface TierRoleIds {
  everywhere: string[];
  byGuild: Record<string, string[]>;
}

/** Both dialects' names of the attribute (the `tierRoles` row of src/edges/outbound/patreon/dialect.ts); a tier carries one. */
export const TIER_ROLE_ID_ATTRIBUTES = ['chat_role_ids', 'discord_role_ids'] as const;

function idsOf(value: unknown): string[] {
  if (isSnowflake(value)) return [value];
  if (Array.isArray(value)) return value.filter(isSnowflake);
  return [];
}

function addAll(target: string[], ids: readonly string[]): void {
  for (const id of ids) if (!target.includes(id)) target.push(id);
}

/**
 * Reads both attributes. Each may be null or absent, an array of ids, or an object whose values
 * are ids or arrays of ids. An object key that is itself a snowflake is a guild id: its roles go
 * to that guild only. Any other key (`"discord"`, a role name) contributes to `everywhere`. Only
 * strings shaped like snowflakes survive (numbers lose precision in JSON and are dropped); order
 * is kept and duplicates removed.
 */
export function parseTierRoleIds(attributes: Readonly<Record<string, unknown>>): TierRoleIds {
  const everywhere: string[] = [];
  const byGuild: Record<string, string[]> = {};
  for (const name of TIER_ROLE_ID_ATTRIBUTES) {
    const value = attributes[name];
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) || typeof value === 'string') {
      addAll(everywhere, idsOf(value));
      continue;
    }
    if (typeof value !== 'object') continue;
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const ids = idsOf(inner);
      if (isSnowflake(key)) {
        if (ids.length === 0) continue;
        const list = (byGuild[key] ??= []);
        addAll(list, ids);
      } else {
        addAll(everywhere, ids);
      }
    }
  }
  return { everywhere, byGuild };
}

/** The roles a tier grants in one guild: the everywhere roles plus that guild's own. */
export function roleIdsForGuild(parsed: TierRoleIds, guildId: string): string[] {
  const out = [...parsed.everywhere];
  addAll(out, parsed.byGuild[guildId] ?? []);
  return out;
}

/** A stored tier, as far as the planner's view of it goes. */
export interface TierRecord {
  id: string;
  campaignId: string;
  title: string;
  amountCents: number;
  roleIds: TierRoleIds;
  removedAt: Date | null;
}

/** A campaign's tier as one guild sees it: the roles it grants there. */
export function guildTier(tier: TierRecord, guildId: string): GuildTier {
  return {
    campaignId: tier.campaignId,
    tierId: tier.id,
    title: tier.title,
    amountCents: tier.amountCents,
    roleIds: roleIdsForGuild(tier.roleIds, guildId),
    removed: tier.removedAt !== null,
  };
}
