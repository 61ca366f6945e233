import { and, asc, eq, gt, inArray, lte } from 'drizzle-orm';
import type { Db } from '../database';
import { dashboardSessions } from '../schema';

/** Dashboard sessions, found by the SHA-256 of their id (the id itself is only in the browser). */
export interface DashboardSessionRepository {
  create(row: Omit<DashboardSessionRow, 'flash' | 'locale'> & { locale?: string | null }): Promise<void>;
  /** The live session with this hash, or null (unknown, signed out or expired). */
  find(idHash: string, now: Date): Promise<DashboardSessionRow | null>;
  delete(idHash: string): Promise<void>;
  setFlash(idHash: string, flash: SessionFlash | null): Promise<void>;
  /** Drops expired sessions, so the table does not grow with every sign-in. */
  prune(now: Date): Promise<number>;
}
/** One message for the next page after a change (post, redirect, get). */
export interface SessionFlash {
  tone: 'success' | 'warning' | 'error' | 'info';
  text: string;
}

/** A dashboard sign-in; the browser holds the sealed id, the row only its SHA-256. */
export interface DashboardSessionRow {
  idHash: string;
  discordUserId: string;
  userName: string;
  /** The language of the user's Discord client at sign-in: the dashboard's frame speaks it. */
  locale: string | null;
  /** The servers Discord listed for the user at sign-in (at most 200): a menu, never an authority. */
  guildIds: string[];
  flash: SessionFlash | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Sign-ins kept per user: a new one beyond this ends the oldest. */
export const MAX_SESSIONS_PER_USER = 10;

export function createDashboardSessionRepository(db: Db): DashboardSessionRepository {
  return {
    async create(row: Omit<DashboardSessionRow, 'flash' | 'locale'> & { locale?: string | null }): Promise<void> {
      await db.insert(dashboardSessions).values({ ...row, flash: null });
      const mine = await db
        .select({ idHash: dashboardSessions.idHash })
        .from(dashboardSessions)
        .where(eq(dashboardSessions.discordUserId, row.discordUserId))
        .orderBy(asc(dashboardSessions.createdAt), asc(dashboardSessions.idHash));
      const extra = mine.length - MAX_SESSIONS_PER_USER;
      if (extra > 0) {
        await db.delete(dashboardSessions).where(
          inArray(
            dashboardSessions.idHash,
            mine.slice(0, extra).map((r) => r.idHash),
          ),
        );
      }
    },

    async find(idHash: string, now: Date): Promise<DashboardSessionRow | null> {
      const [row] = await db
        .select()
        .from(dashboardSessions)
        .where(and(eq(dashboardSessions.idHash, idHash), gt(dashboardSessions.expiresAt, now)));
      return row ?? null;
    },

    async delete(idHash: string): Promise<void> {
      await db.delete(dashboardSessions).where(eq(dashboardSessions.idHash, idHash));
    },

    async setFlash(idHash: string, flash: SessionFlash | null): Promise<void> {
      await db.update(dashboardSessions).set({ flash }).where(eq(dashboardSessions.idHash, idHash));
    },

    async prune(now: Date): Promise<number> {
      const rows = await db
        .delete(dashboardSessions)
        .where(lte(dashboardSessions.expiresAt, now))
        .returning({ h: dashboardSessions.idHash });
      return rows.length;
    },
  };
}
