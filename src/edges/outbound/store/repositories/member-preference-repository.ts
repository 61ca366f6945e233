import { eq, inArray, sql } from 'drizzle-orm';
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

    async localeOf(discordUserId: string): Promise<string | null> {
      const [row] = await db
        .select({ locale: memberPreferences.locale })
        .from(memberPreferences)
        .where(eq(memberPreferences.discordUserId, discordUserId));
      return row?.locale ?? null;
    },

    async noteLocale(discordUserId: string, locale: string, now: Date): Promise<void> {
      await db
        .insert(memberPreferences)
        .values({ discordUserId, locale: locale.slice(0, 16), updatedAt: now })
        .onConflictDoUpdate({
          target: memberPreferences.discordUserId,
          set: { locale: sql`excluded.locale` },
          setWhere: sql`${memberPreferences.locale} is distinct from excluded.locale`,
        });
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
  /** Their Discord client's language at their last command; null when they never ran one. */
  localeOf(discordUserId: string): Promise<string | null>;
  /** Records their Discord client's language (written only when it changed). */
  noteLocale(discordUserId: string, locale: string, now: Date): Promise<void>;
}
