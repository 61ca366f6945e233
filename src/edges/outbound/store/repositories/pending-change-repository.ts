import { desc, eq, inArray, lt } from 'drizzle-orm';
import type { Db } from '../database';
import { pendingChanges } from '../schema';

/** A change waiting for its confirmation, as stored. */
export interface PendingChangeRow {
  id: string;
  guildId: string;
  userId: string;
  change: unknown;
  fingerprint: string;
  expiresAt: Date;
}

/** How many changes may wait in one server at once: older ones are forgotten first. */
export const PENDING_PER_GUILD = 50;

/** Bulk changes waiting for a confirmation (src/app/admin/pending-changes.ts). */
export function createPendingChangeRepository(db: Db): PendingChangeRepository {
  return {
    async add(row: PendingChangeRow, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.delete(pendingChanges).where(lt(pendingChanges.expiresAt, now));
        await tx.insert(pendingChanges).values({ ...row, createdAt: now });
        const beyond = await tx
          .select({ id: pendingChanges.id })
          .from(pendingChanges)
          .where(eq(pendingChanges.guildId, row.guildId))
          .orderBy(desc(pendingChanges.createdAt), desc(pendingChanges.id))
          .offset(PENDING_PER_GUILD);
        if (beyond.length > 0)
          await tx.delete(pendingChanges).where(
            inArray(
              pendingChanges.id,
              beyond.map((r) => r.id),
            ),
          );
      });
    },

    async get(id: string): Promise<PendingChangeRow | null> {
      const [row] = await db.select().from(pendingChanges).where(eq(pendingChanges.id, id));
      return row ?? null;
    },

    async take(id: string): Promise<boolean> {
      const rows = await db.delete(pendingChanges).where(eq(pendingChanges.id, id)).returning({ id: pendingChanges.id });
      return rows.length > 0;
    },
  };
}

/** Bulk changes waiting for a confirmation. */
export interface PendingChangeRepository {
  /** Saves a change, forgetting the expired ones and the oldest beyond {@link PENDING_PER_GUILD} in its server. */
  add(row: PendingChangeRow, now: Date): Promise<void>;
  get(id: string): Promise<PendingChangeRow | null>;
  /** Takes the change: true for the one caller that removed it (a double press applies once). */
  take(id: string): Promise<boolean>;
}
