import { type SQL, and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { queryRows } from '../database';
import type { Db } from '../database';
import { auditLog } from '../schema';
import type { AuditRow } from './ledger-repository';

export type AuditAction = AuditRow['action'];
export type AuditOutcome = AuditRow['outcome'];

/** What a page of the audit log is narrowed to; each field is optional but the guild. */
export interface AuditFilter {
  guildId: string;
  discordUserId?: string;
  roleId?: string;
  trigger?: string;
  outcome?: AuditOutcome;
  action?: AuditAction;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** A row's place in the newest-first order: its time, then its id. */
export interface AuditCursor {
  at: Date;
  id: number;
}

export interface AuditPageQuery {
  /** Rows after this one in the newest-first order (older), or before it (newer) with `direction: 'newer'`. */
  cursor: AuditCursor | null;
  direction: 'older' | 'newer';
  limit: number;
}

export function createAuditLogRepository(db: Db): AuditLogRepository {
  function where(filter: AuditFilter): SQL {
    const parts: SQL[] = [eq(auditLog.guildId, filter.guildId)];
    if (filter.discordUserId) parts.push(eq(auditLog.discordUserId, filter.discordUserId));
    if (filter.roleId) parts.push(eq(auditLog.roleId, filter.roleId));
    if (filter.trigger) parts.push(eq(auditLog.trigger, filter.trigger));
    if (filter.outcome) parts.push(eq(auditLog.outcome, filter.outcome));
    if (filter.action) parts.push(eq(auditLog.action, filter.action));
    if (filter.from) parts.push(gte(auditLog.at, filter.from));
    if (filter.to) parts.push(lt(auditLog.at, filter.to));
    return and(...parts)!;
  }

  return {
    async page(filter: AuditFilter, query: AuditPageQuery): Promise<AuditRow[]> {
      const { cursor, direction, limit } = query;
      const conditions = [where(filter)];
      if (cursor) {
        const at = cursor.at.toISOString();
        conditions.push(
          direction === 'older'
            ? sql`(${auditLog.at}, ${auditLog.id}) < (${at}::timestamptz, ${cursor.id})`
            : sql`(${auditLog.at}, ${auditLog.id}) > (${at}::timestamptz, ${cursor.id})`,
        );
      }
      const order = direction === 'older' ? [desc(auditLog.at), desc(auditLog.id)] : [asc(auditLog.at), asc(auditLog.id)];
      const rows = await db
        .select()
        .from(auditLog)
        .where(and(...conditions))
        .orderBy(...order)
        .limit(limit);
      return direction === 'older' ? rows : rows.reverse();
    },

    async appliedPerDay(guildId: string, since: Date, until?: Date): Promise<Array<{ day: string; adds: number; removes: number }>> {
      const rows = await queryRows<{ day: string; adds: number; removes: number }>(
        db,
        sql`
        select to_char(date_trunc('day', at at time zone 'UTC'), 'YYYY-MM-DD') as day,
          count(*) filter (where action = 'add')::int as adds,
          count(*) filter (where action = 'remove')::int as removes
        from audit_log
        where guild_id = ${guildId} and outcome = 'applied' and at >= ${since.toISOString()}::timestamptz
          ${until ? sql`and at < ${until.toISOString()}::timestamptz` : sql``}
        group by 1
        order by 1`,
      );
      return rows.map((r) => ({ day: r.day, adds: Number(r.adds), removes: Number(r.removes) }));
    },
  };
}

/**
 * The read side of the audit log for the dashboard: keyset pages newest first, one index range per
 * page (`audit_log_*_idx` in src/edges/outbound/store/schema/ledger.ts), so page 1,000 costs what page 1 costs.
 *
 * `at` is written with millisecond precision by its one writer (`ledger.audit`, from a JS `Date`),
 * which is what a cursor carries back, so `(at, id)` compares exactly.
 */
export interface AuditLogRepository {
  /** One page, always newest first; `limit` rows at most. */
  page(filter: AuditFilter, query: AuditPageQuery): Promise<AuditRow[]>;
  /** Applied role changes per UTC day from `since` (until `until`, exclusive), split into additions and removals. */
  appliedPerDay(guildId: string, since: Date, until?: Date): Promise<Array<{ day: string; adds: number; removes: number }>>;
}
