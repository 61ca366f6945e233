import type { Clock } from '../../../shared/clock';
import type { GuildDirectory, GuildRole } from './guild-directory';

/** A guild's roles and the bot's own role ids, as read at `fetchedAt`. */
export interface GuildSnapshot {
  fetchedAt: number;
  roles: GuildRole[];
  botRoleIds: string[];
}

interface CacheEntry {
  promise: Promise<GuildSnapshot>;
  /** Role ids already found missing in this snapshot, so an unknown role costs one reload at most. */
  confirmedUnknown: Set<string>;
}

export interface GuildSnapshotCache {
  /** The guild's snapshot, reloaded after the TTL; concurrent callers share one reload. */
  get(guildId: string): Promise<GuildSnapshot>;
  /**
   * The snapshot, reloaded once if `roleId` is not in it: a role created since the snapshot was
   * taken is not unknown. A role still missing after that reload stays missing until the TTL.
   */
  getWithRole(guildId: string, roleId: string): Promise<GuildSnapshot>;
  invalidate(guildId?: string): void;
}

/**
 * The short-lived per-guild cache of roles and the bot's member that both the role writer (to
 * refuse a change before sending it) and the reconciler (to know which roles exist and which the
 * bot may manage) read. Gateway events (role created, moved, deleted) and Discord's refusals
 * invalidate it.
 */
export function createGuildSnapshotCache(options: { directory: GuildDirectory; clock: Clock; ttlMs?: number }): GuildSnapshotCache {
  const { directory, clock } = options;
  const ttl = options.ttlMs ?? 60_000;
  const cache = new Map<string, CacheEntry>();

  function load(guildId: string): CacheEntry {
    const promise = Promise.all([directory.listRoles(guildId), directory.getBotMember(guildId)]).then(([roles, bot]) => ({
      fetchedAt: clock.now().getTime(),
      roles,
      botRoleIds: bot.roleIds,
    }));
    const entry: CacheEntry = { promise, confirmedUnknown: new Set() };
    cache.set(guildId, entry);
    promise.catch(() => {
      if (cache.get(guildId) === entry) cache.delete(guildId);
    });
    return entry;
  }

  async function entryFor(guildId: string): Promise<CacheEntry> {
    const entry = cache.get(guildId);
    if (!entry) return load(guildId);
    const value = await entry.promise;
    if (clock.now().getTime() - value.fetchedAt < ttl) return entry;
    const current = cache.get(guildId);
    return current === entry || !current ? load(guildId) : entryFor(guildId);
  }

  return {
    get: async (guildId) => (await entryFor(guildId)).promise,
    async getWithRole(guildId, roleId) {
      const entry = await entryFor(guildId);
      const snapshot = await entry.promise;
      if (snapshot.roles.some((r) => r.id === roleId) || entry.confirmedUnknown.has(roleId)) return snapshot;
      const current = cache.get(guildId);
      const fresh = current && current !== entry ? current : load(guildId);
      fresh.confirmedUnknown.add(roleId);
      return fresh.promise;
    },
    invalidate(guildId) {
      if (guildId === undefined) cache.clear();
      else cache.delete(guildId);
    },
  };
}
