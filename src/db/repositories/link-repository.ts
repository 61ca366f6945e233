import { desc, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '../database';
import { linkEvents, links } from '../schema';

export type LinkRepository = ReturnType<typeof createLinkRepository>;
export type Link = typeof links.$inferSelect;
export type LinkEvent = typeof linkEvents.$inferSelect;

export interface OauthLinkOutcome {
  link: Link;
  /** The Discord account this service account was linked to before (its roles must move). */
  movedFrom: string | null;
  /** The service account this Discord user was linked to before, if it was another one. */
  replacedPatreonUserId: string | null;
}

/**
 * Discord user ↔ service user, one to one. `/link` (source `oauth`) always wins over a link read
 * from the service user's `social_connections` (source `social`).
 */
export function createLinkRepository(db: Db) {
  return {
    async byDiscordUser(discordUserId: string): Promise<Link | null> {
      const [row] = await db.select().from(links).where(eq(links.discordUserId, discordUserId));
      return row ?? null;
    },

    async byPatreonUser(patreonUserId: string): Promise<Link | null> {
      const [row] = await db.select().from(links).where(eq(links.patreonUserId, patreonUserId));
      return row ?? null;
    },

    async byPatreonUsers(patreonUserIds: readonly string[]): Promise<Link[]> {
      if (patreonUserIds.length === 0) return [];
      return db.select().from(links).where(inArray(links.patreonUserId, [...patreonUserIds]));
    },

    async byDiscordUsers(discordUserIds: readonly string[]): Promise<Link[]> {
      if (discordUserIds.length === 0) return [];
      return db.select().from(links).where(inArray(links.discordUserId, [...discordUserIds]));
    },

    /**
     * Links through `/link`. A service account linked to another Discord account moves here (the
     * other account gets a `moved_away` event that its `/status` explains); a previous service
     * account of this Discord user is replaced.
     */
    async linkOauth(discordUserId: string, patreonUserId: string, now: Date): Promise<OauthLinkOutcome> {
      return db.transaction(async (tx) => {
        const existing = await tx
          .select()
          .from(links)
          .where(or(eq(links.discordUserId, discordUserId), eq(links.patreonUserId, patreonUserId)));
        let movedFrom: string | null = null;
        let replacedPatreonUserId: string | null = null;
        for (const row of existing) {
          if (row.discordUserId !== discordUserId) {
            movedFrom = row.discordUserId;
            await tx.insert(linkEvents).values({
              discordUserId: row.discordUserId,
              patreonUserId,
              kind: 'moved_away',
              detail: discordUserId,
              at: now,
            });
          } else if (row.patreonUserId !== patreonUserId) {
            replacedPatreonUserId = row.patreonUserId;
          }
          await tx.delete(links).where(eq(links.discordUserId, row.discordUserId));
        }
        const [link] = await tx
          .insert(links)
          .values({ discordUserId, patreonUserId, source: 'oauth', linkedAt: now, updatedAt: now })
          .returning();
        await tx.insert(linkEvents).values({ discordUserId, patreonUserId, kind: 'linked', detail: 'oauth', at: now });
        return { link: link!, movedFrom, replacedPatreonUserId };
      });
    },

    /**
     * Links from `social_connections.discord.user_id`, only when neither side is linked yet
     * (`/link` wins, and a social link never moves anyone). Returns true when a link was made.
     */
    async linkSocial(discordUserId: string, patreonUserId: string, now: Date): Promise<boolean> {
      const inserted = await db
        .insert(links)
        .values({ discordUserId, patreonUserId, source: 'social', linkedAt: now, updatedAt: now })
        .onConflictDoNothing()
        .returning();
      if (inserted.length === 0) return false;
      await db.insert(linkEvents).values({ discordUserId, patreonUserId, kind: 'linked', detail: 'social', at: now });
      return true;
    },

    async unlink(discordUserId: string, now: Date): Promise<Link | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx.delete(links).where(eq(links.discordUserId, discordUserId)).returning();
        if (!row) return null;
        await tx.insert(linkEvents).values({ discordUserId, patreonUserId: row.patreonUserId, kind: 'unlinked', at: now });
        return row;
      });
    },

    async lastEvent(discordUserId: string): Promise<LinkEvent | null> {
      const [row] = await db
        .select()
        .from(linkEvents)
        .where(eq(linkEvents.discordUserId, discordUserId))
        .orderBy(desc(linkEvents.at), desc(linkEvents.id))
        .limit(1);
      return row ?? null;
    },

    async count(): Promise<number> {
      return db.$count(links);
    },
  };
}
