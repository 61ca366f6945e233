import { and, eq, sql } from 'drizzle-orm';
import type { GrantKind, LedgerEntry } from '../../../../core/planner/types';
import type { ReasonCode } from '../../../../core/planner/reasons';
import type { HeldWhy } from '../../../../core/sync-report';
import type { Fence } from '../../../../shared/fence';
import { type Db, queryRows, textArray } from '../database';
import { fenceHolds } from '../fences';
import { auditLog, roleGrants } from '../schema';

/**
 * The ledger of our grants and the audit log of every change. Its one writer is the role applier
 * (src/app/sync/role-applier.ts), which records a grant before its request and drops it when
 * Discord refused it or the role went away, so a role Tierlink gave is never missing from here.
 */
export interface LedgerRepository {
  forUser(guildId: string, discordUserId: string): Promise<LedgerEntry[]>;
  /** Every grant of a guild, grouped by user: compact enough for a 30,000-member guild. */
  forGuild(guildId: string): Promise<Map<string, LedgerEntry[]>>;
  /** The grants of these members of a guild (a page of the full sync), grouped by user. */
  forUsers(guildId: string, discordUserIds: readonly string[]): Promise<Map<string, LedgerEntry[]>>;
  guildsOfUser(discordUserId: string): Promise<string[]>;
  countInGuild(guildId: string): Promise<number>;
  /**
   * Records `recorded` (a grant already recorded keeps its first time, so an in-flight window
   * never restarts) and drops `removed`, a statement per thousand rows. With a `fence`, the
   * grants are written only while it holds, in the same statement (docs/outages-and-fencing.md), and
   * nothing at all is written when it does not: answers false then (with no grant to record, the
   * fence is checked on its own, so removals are fenced too).
   */
  write(
    guildId: string,
    recorded: readonly GrantRecord[],
    removed: ReadonlyArray<{ discordUserId: string; roleId: string }>,
    now: Date,
    fence?: Fence | null,
  ): Promise<boolean>;
  /** Audit rows, a statement per thousand. */
  audit(entries: readonly AuditEntry[]): Promise<void>;
  recentAudit(guildId: string, discordUserId: string, limit?: number): Promise<AuditRow[]>;
}
/** One line of the audit log to write: a change to one member's role and what came of it. */
export interface AuditEntry {
  /** When it happened; the database's clock when not given. */
  at?: Date;
  guildId: string;
  discordUserId: string;
  roleId: string;
  /** `adopt`: a role the member already held, recorded as Tierlink's grant without a request (`/sync adopt:true`). */
  action: AuditAction;
  outcome: AuditOutcome;
  trigger: string;
  reason: string;
  /** `reason` as a code and its parameters (src/core/planner/reasons.ts), for readers of another language. */
  reasonCode?: ReasonCode | null;
  error?: string | null;
  /** A held change: why the run held its removals (what `error` says), as facts. */
  heldWhy?: HeldWhy | null;
}
export type AuditAction = 'add' | 'remove' | 'forget' | 'adopt';
export type AuditOutcome = 'applied' | 'failed' | 'held' | 'blocked';

/** A line of the audit log as stored. `reasonCode` and `heldWhy` are null on rows written before they were. */
export interface AuditRow extends Omit<AuditEntry, 'at' | 'reasonCode' | 'error' | 'heldWhy'> {
  id: number;
  at: Date;
  reasonCode: ReasonCode | null;
  error: string | null;
  heldWhy: HeldWhy | null;
}

/** A grant to record: one role for one member, and why. */
export interface GrantRecord {
  discordUserId: string;
  roleId: string;
  campaignId: string | null;
  tierId: string | null;
  kind: GrantKind;
  /** The entitlement sources that justified it (`patreon`, `comp`, `kofi`); empty for setting roles. */
  sources: readonly string[];
  reason: string;
  /** `reason` as a code (src/core/planner/reasons.ts); absent: the sentence alone is recorded. */
  why?: ReasonCode | null;
}

/** Rows per statement: rows travel as one JSON parameter, so the count is not bound by PostgreSQL's parameter limit. */
const CHUNK = 1000;

const ENTRY_COLUMNS = {
  roleId: roleGrants.roleId,
  campaignId: roleGrants.campaignId,
  tierId: roleGrants.tierId,
  kind: roleGrants.kind,
  recordedAt: roleGrants.grantedAt,
};

export function createLedgerRepository(db: Db): LedgerRepository {
  return {
    async forUser(guildId: string, discordUserId: string): Promise<LedgerEntry[]> {
      return db
        .select(ENTRY_COLUMNS)
        .from(roleGrants)
        .where(and(eq(roleGrants.guildId, guildId), eq(roleGrants.discordUserId, discordUserId)))
        .orderBy(roleGrants.grantedAt, roleGrants.roleId);
    },

    async forGuild(guildId: string): Promise<Map<string, LedgerEntry[]>> {
      const rows = await db
        .select({ userId: roleGrants.discordUserId, ...ENTRY_COLUMNS })
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

    async forUsers(guildId: string, discordUserIds: readonly string[]): Promise<Map<string, LedgerEntry[]>> {
      const out = new Map<string, LedgerEntry[]>();
      if (discordUserIds.length === 0) return out;
      const [row] = await queryRows<{ j: string }>(
        db,
        sql`select coalesce(json_agg(json_build_array(discord_user_id, role_id, campaign_id, tier_id, kind, granted_at)), '[]')::text as j
            from role_grants where guild_id = ${guildId} and discord_user_id = any(${textArray(discordUserIds)}::text[])`,
      );
      type Raw = [string, string, string | null, string | null, LedgerEntry['kind'], string];
      for (const [userId, roleId, campaignId, tierId, kind, at] of JSON.parse(row?.j ?? '[]') as Raw[]) {
        const entry: LedgerEntry = { roleId, campaignId, tierId, kind, recordedAt: new Date(at) };
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

    async write(
      guildId: string,
      recorded: readonly GrantRecord[],
      removed: ReadonlyArray<{ discordUserId: string; roleId: string }>,
      now: Date,
      fence: Fence | null = null,
    ): Promise<boolean> {
      const holds = fence ? fenceHolds(fence, now) : sql`true`;
      if (fence && recorded.length === 0) {
        const [row] = await queryRows<{ ok: boolean }>(db, sql`select ${holds} as ok`);
        if (row?.ok !== true) return false;
      }
      for (let i = 0; i < recorded.length; i += CHUNK) {
        const rows = recorded.slice(i, i + CHUNK).map((g) => ({
          u: g.discordUserId,
          r: g.roleId,
          c: g.campaignId,
          t: g.tierId,
          k: g.kind,
          s: g.sources,
          why: g.reason,
          code: g.why ?? null,
        }));
        const written = await queryRows<{ one: number }>(
          db,
          sql`
          insert into role_grants (guild_id, discord_user_id, role_id, campaign_id, tier_id, kind, sources, reason, reason_code, granted_at)
          select ${guildId}, r.u, r.r, r.c, r.t, r.k, array(select jsonb_array_elements_text(r.s)), r.why, r.code, ${now.toISOString()}::timestamptz
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u text, r text, c text, t text, k text, s jsonb, why text, code jsonb)
          where ${holds}
          on conflict (guild_id, discord_user_id, role_id) do update set
            campaign_id = excluded.campaign_id, tier_id = excluded.tier_id, kind = excluded.kind, sources = excluded.sources,
            reason = excluded.reason, reason_code = excluded.reason_code
          returning 1 as one
        `,
        );
        if (written.length === 0) return false;
      }
      for (let i = 0; i < removed.length; i += CHUNK) {
        const rows = removed.slice(i, i + CHUNK).map((g) => ({ u: g.discordUserId, r: g.roleId }));
        await db.execute(sql`
          delete from role_grants g
          using jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u text, r text)
          where g.guild_id = ${guildId} and g.discord_user_id = r.u and g.role_id = r.r
        `);
      }
      return true;
    },

    async audit(entries: readonly AuditEntry[]): Promise<void> {
      for (let i = 0; i < entries.length; i += CHUNK) {
        const rows = entries.slice(i, i + CHUNK).map((e) => ({
          at: (e.at ?? new Date()).toISOString(),
          g: e.guildId,
          u: e.discordUserId,
          r: e.roleId,
          a: e.action,
          o: e.outcome,
          t: e.trigger,
          why: e.reason,
          code: e.reasonCode ?? null,
          err: e.error ?? null,
          held: e.heldWhy ?? null,
        }));
        await db.execute(sql`
          insert into audit_log (at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason, reason_code, error, held_why)
          select r.at, r.g, r.u, r.r, r.a, r.o, r.t, r.why, r.code, r.err, r.held
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            as r(at timestamptz, g text, u text, r text, a text, o text, t text, why text, code jsonb, err text, held jsonb)
        `);
      }
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
