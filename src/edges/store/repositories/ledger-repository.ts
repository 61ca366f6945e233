import { and, eq, sql } from 'drizzle-orm';
import type { GrantKind, LedgerEntry } from '../../../core/planner/types';
import type { Db } from '../database';
import { auditLog, roleGrants } from '../schema';

export type LedgerRepository = ReturnType<typeof createLedgerRepository>;
export type AuditEntry = typeof auditLog.$inferInsert;
export type AuditRow = typeof auditLog.$inferSelect;

/**
 * The ledger of our grants and the audit log of every change. A grant is recorded only after
 * Discord confirmed it, and removed only after Discord confirmed the removal (or the role was
 * already gone), so the ledger never claims a role we do not hold.
 */
export function createLedgerRepository(db: Db) {
  return {
    async forUser(guildId: string, discordUserId: string): Promise<LedgerEntry[]> {
      return db
        .select({ roleId: roleGrants.roleId, campaignId: roleGrants.campaignId, tierId: roleGrants.tierId, kind: roleGrants.kind })
        .from(roleGrants)
        .where(and(eq(roleGrants.guildId, guildId), eq(roleGrants.discordUserId, discordUserId)))
        .orderBy(roleGrants.grantedAt, roleGrants.roleId);
    },

    /** Every grant of a guild, grouped by user: compact enough for a 30,000-member guild. */
    async forGuild(guildId: string): Promise<Map<string, LedgerEntry[]>> {
      const rows = await db
        .select({
          userId: roleGrants.discordUserId,
          roleId: roleGrants.roleId,
          campaignId: roleGrants.campaignId,
          tierId: roleGrants.tierId,
          kind: roleGrants.kind,
        })
        .from(roleGrants)
        .where(eq(roleGrants.guildId, guildId));
      const out = new Map<string, LedgerEntry[]>();
      for (const { userId, ...entry } of rows) {
        const list = out.get(userId);
        if (list) list.push(entry);
        else out.set(userId, [entry]);
      }
      return out;
    },

    async guildsOfUser(discordUserId: string): Promise<string[]> {
      const rows = await db
        .selectDistinct({ guildId: roleGrants.guildId })
        .from(roleGrants)
        .where(eq(roleGrants.discordUserId, discordUserId));
      return rows.map((r) => r.guildId);
    },

    async countInGuild(guildId: string): Promise<number> {
      return db.$count(roleGrants, eq(roleGrants.guildId, guildId));
    },

    async record(
      guildId: string,
      discordUserId: string,
      grant: { roleId: string; campaignId: string | null; tierId: string | null; kind: GrantKind; reason: string },
      now: Date,
    ): Promise<void> {
      await db
        .insert(roleGrants)
        .values({ guildId, discordUserId, ...grant, grantedAt: now })
        .onConflictDoUpdate({
          target: [roleGrants.guildId, roleGrants.discordUserId, roleGrants.roleId],
          set: { campaignId: grant.campaignId, tierId: grant.tierId, kind: grant.kind, reason: grant.reason },
        });
    },

    async remove(guildId: string, discordUserId: string, roleId: string): Promise<void> {
      await db
        .delete(roleGrants)
        .where(and(eq(roleGrants.guildId, guildId), eq(roleGrants.discordUserId, discordUserId), eq(roleGrants.roleId, roleId)));
    },

    async audit(entries: readonly AuditEntry[]): Promise<void> {
      if (entries.length > 0) await db.insert(auditLog).values([...entries]);
    },

    async recentAudit(guildId: string, discordUserId: string, limit = 10): Promise<AuditRow[]> {
      return db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.guildId, guildId), eq(auditLog.discordUserId, discordUserId)))
        .orderBy(sql`${auditLog.at} desc, ${auditLog.id} desc`)
        .limit(limit);
    },
  };
}
