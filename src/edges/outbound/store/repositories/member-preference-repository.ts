import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { memberPreferences } from '../schema';

export interface MemberPreferences {
  /** Whether announcements (a welcome) may name them. */
  namedInAnnouncements: boolean;
  /** Whether Tierlink may send them direct messages about their membership. */
  directMessages: boolean;
}

export const DEFAULT_PREFERENCES: MemberPreferences = { namedInAnnouncements: true, directMessages: true };

export function createMemberPreferenceRepository(db: Db): MemberPreferenceRepository {
  return {
    async of(discordUserId: string): Promise<MemberPreferences> {
      return (await this.ofMany([discordUserId])).get(discordUserId) ?? DEFAULT_PREFERENCES;
    },

    async ofMany(discordUserIds: readonly string[]): Promise<Map<string, MemberPreferences>> {
      const out = new Map<string, MemberPreferences>();
      if (discordUserIds.length === 0) return out;
      const rows = await db
        .select()
        .from(memberPreferences)
        .where(inArray(memberPreferences.discordUserId, [...new Set(discordUserIds)]));
      for (const r of rows) out.set(r.discordUserId, { namedInAnnouncements: r.namedInAnnouncements, directMessages: r.directMessages });
      return out;
    },

    async set(discordUserId: string, change: Partial<MemberPreferences>, now: Date): Promise<MemberPreferences> {
      const next = { ...(await this.of(discordUserId)), ...change };
      await db
        .insert(memberPreferences)
        .values({ discordUserId, ...next, updatedAt: now })
        .onConflictDoUpdate({
          target: memberPreferences.discordUserId,
          set: {
            namedInAnnouncements: next.namedInAnnouncements,
            directMessages: next.directMessages,
            updatedAt: sql`excluded.updated_at`,
          },
        });
      return next;
    },
  };
}

/** Each person's own choices (`/privacy`); a person who never chose has the defaults. */
export interface MemberPreferenceRepository {
  of(discordUserId: string): Promise<MemberPreferences>;
  ofMany(discordUserIds: readonly string[]): Promise<Map<string, MemberPreferences>>;
  set(discordUserId: string, change: Partial<MemberPreferences>, now: Date): Promise<MemberPreferences>;
}
