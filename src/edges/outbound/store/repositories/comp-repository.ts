import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type Db, textArray } from '../database';
import { comps } from '../schema';

/** A comp: a member of a server entitled to a tier until `until`, whatever any other source says. */
export interface CompRow extends CompGrant {
  id: number;
  grantedAt: Date;
  /** Set when revoked; a comp in force has neither this nor a past `until`. */
  revokedAt: Date | null;
  revokedBy: string | null;
}

/** A comp to give: a member of a server entitled to a tier until a time, and why. */
export interface CompGrant {
  guildId: string;
  discordUserId: string;
  campaignId: string;
  tierId: string;
  until: Date;
  reason: string;
  grantedBy: string;
}

export function createCompRepository(db: Db): CompRepository {
  return {
    async grant(grant: CompGrant, now: Date): Promise<CompRow> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(comps)
          .where(
            and(
              eq(comps.guildId, grant.guildId),
              eq(comps.discordUserId, grant.discordUserId),
              eq(comps.campaignId, grant.campaignId),
              eq(comps.tierId, grant.tierId),
              isNull(comps.revokedAt),
            ),
          )
          .for('update');
        if (current) {
          const [row] = await tx
            .update(comps)
            .set({ until: grant.until, reason: grant.reason, grantedBy: grant.grantedBy, grantedAt: now })
            .where(eq(comps.id, current.id))
            .returning();
          return row!;
        }
        const [row] = await tx
          .insert(comps)
          .values({ ...grant, grantedAt: now })
          .returning();
        return row!;
      });
    },

    async revoke(
      key: { guildId: string; discordUserId: string; campaignId: string; tierId: string },
      revokedBy: string,
      now: Date,
    ): Promise<CompRow | null> {
      const [row] = await db
        .update(comps)
        .set({ revokedAt: now, revokedBy })
        .where(
          and(
            eq(comps.guildId, key.guildId),
            eq(comps.discordUserId, key.discordUserId),
            eq(comps.campaignId, key.campaignId),
            eq(comps.tierId, key.tierId),
            isNull(comps.revokedAt),
            gt(comps.until, now),
          ),
        )
        .returning();
      return row ?? null;
    },

    async ofUsers(discordUserIds: readonly string[], since: Date): Promise<CompRow[]> {
      if (discordUserIds.length === 0) return [];
      return db
        .select()
        .from(comps)
        .where(
          and(
            sql`${comps.discordUserId} = any(${textArray([...new Set(discordUserIds)])}::text[])`,
            isNull(comps.revokedAt),
            gt(comps.until, since),
          ),
        )
        .orderBy(asc(comps.until), asc(comps.id));
    },

    async inForce(guildId: string, now: Date, discordUserId?: string): Promise<CompRow[]> {
      return db
        .select()
        .from(comps)
        .where(
          and(
            eq(comps.guildId, guildId),
            isNull(comps.revokedAt),
            gt(comps.until, now),
            ...(discordUserId !== undefined ? [eq(comps.discordUserId, discordUserId)] : []),
          ),
        )
        .orderBy(asc(comps.until), asc(comps.id));
    },

    async countInForce(guildIds: readonly string[], now: Date): Promise<Map<string, number>> {
      if (guildIds.length === 0) return new Map();
      const rows = await db
        .select({ guildId: comps.guildId, n: sql<number>`count(*)::int` })
        .from(comps)
        .where(and(inArray(comps.guildId, [...guildIds]), isNull(comps.revokedAt), gt(comps.until, now)))
        .groupBy(comps.guildId);
      return new Map(rows.map((r) => [r.guildId, r.n]));
    },

    async pruneEnded(before: Date): Promise<number> {
      const rows = await db
        .delete(comps)
        .where(or(lt(comps.until, before), lt(comps.revokedAt, before)))
        .returning({ id: comps.id });
      return rows.length;
    },
  };
}

/**
 * Comps: tiers given by a server's staff for a while. One comp is in force per member and tier
 * (granting again moves its end and reason); revoking ends it now; an ended comp stays as the
 * record of who gave what, until retention prunes it.
 */
export interface CompRepository {
  /** Gives a comp, or replaces the end and reason of the one in force; answers the comp in force. */
  grant(grant: CompGrant, now: Date): Promise<CompRow>;
  /** Ends the comp in force of a member for a tier now; answers it, or null when there was none. */
  revoke(
    key: { guildId: string; discordUserId: string; campaignId: string; tierId: string },
    revokedBy: string,
    now: Date,
  ): Promise<CompRow | null>;
  /**
   * The comps not revoked of these Discord users that ended after `since` (the planner needs the
   * recently ended ones to say why a role goes), all servers, soonest end first.
   */
  ofUsers(discordUserIds: readonly string[], since: Date): Promise<CompRow[]>;
  /** The comps in force in a server (of one member, when given), soonest end first. */
  inForce(guildId: string, now: Date, discordUserId?: string): Promise<CompRow[]>;
  /** How many comps are in force in each of these servers. */
  countInForce(guildIds: readonly string[], now: Date): Promise<Map<string, number>>;
  /** Deletes comps that ended (or were revoked) before `before`; answers how many. */
  pruneEnded(before: Date): Promise<number>;
}
