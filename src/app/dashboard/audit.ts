import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { AuditCursor, AuditFilter, AuditLogRepository } from '../../edges/outbound/store/repositories/audit-log-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { AuditRow } from '../../edges/outbound/store/repositories/ledger-repository';
import type { PatronDirectoryRepository } from '../../edges/outbound/store/repositories/patron-directory-repository';
import type { Logger } from '../../shared/logger';
import type { AuditEntry } from './views';

/** Rows per page of the audit log. */
export const AUDIT_PAGE_SIZE = 50;
/** An export holds at most this many rows (narrow the dates for more). */
export const MAX_EXPORT_ROWS = 200_000;
const EXPORT_BATCH = 1000;

export type AuditQuery = Omit<AuditFilter, 'guildId'>;

export interface AuditPage {
  entries: AuditEntry[];
  /** Cursors of the neighbouring pages, null at either end. */
  newer: string | null;
  older: string | null;
}

/** A cursor in a URL: `<ms since epoch>-<id>`. */
export function encodeCursor(cursor: AuditCursor): string {
  return `${cursor.at.getTime()}-${cursor.id}`;
}

export function decodeCursor(text: string | undefined | null): AuditCursor | null {
  const match = text ? /^(\d{1,15})-(\d{1,15})$/.exec(text) : null;
  if (!match) return null;
  return { at: new Date(Number(match[1])), id: Number(match[2]) };
}

export interface AuditDeps {
  auditLog: Pick<AuditLogRepository, 'page'>;
  guilds: Pick<GuildRepository, 'campaignsOf'>;
  patronDirectory: Pick<PatronDirectoryRepository, 'linksOf'>;
  snapshots: Pick<GuildSnapshotCache, 'get'>;
  logger: Logger;
}

export function createAuditBrowser(deps: AuditDeps): AuditBrowser {
  /** Role names now (a deleted role keeps its id only); the page still renders when Discord cannot be read. */
  async function roleNames(guildId: string): Promise<Map<string, string>> {
    try {
      const snapshot = await deps.snapshots.get(guildId);
      return new Map(snapshot.roles.map((r) => [r.id, r.name]));
    } catch (error) {
      deps.logger.warn({ err: error, guildId }, 'audit log: role names unavailable');
      return new Map();
    }
  }

  async function named(guildId: string, rows: readonly AuditRow[], roles: Map<string, string>): Promise<AuditEntry[]> {
    const campaignIds = await deps.guilds.campaignsOf(guildId);
    const links = await deps.patronDirectory.linksOf(
      campaignIds,
      rows.map((r) => r.discordUserId),
    );
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      userId: r.discordUserId,
      patronName: links.get(r.discordUserId)?.patronName ?? null,
      roleId: r.roleId,
      roleName: roles.get(r.roleId) ?? null,
      action: r.action,
      outcome: r.outcome,
      trigger: r.trigger,
      reason: r.reason,
      why: r.reasonCode ?? null,
      error: r.error,
      heldWhy: r.heldWhy ?? null,
    }));
  }

  return {
    async page(
      guildId: string,
      query: AuditQuery,
      at: { cursor: string | null; direction: 'older' | 'newer'; size?: number },
    ): Promise<AuditPage> {
      const size = Math.min(Math.max(at.size ?? AUDIT_PAGE_SIZE, 1), 500);
      const cursor = decodeCursor(at.cursor);
      const direction = cursor ? at.direction : 'older';
      const rows = await deps.auditLog.page({ ...query, guildId }, { cursor, direction, limit: size + 1 });
      const more = rows.length > size;
      // One row past the page says whether another page lies that way; it is not shown.
      const shown = direction === 'older' ? rows.slice(0, size) : rows.slice(rows.length - Math.min(rows.length, size));
      const first = shown[0];
      const last = shown.at(-1);
      const hasNewer = direction === 'newer' ? more : cursor !== null;
      const hasOlder = direction === 'older' ? more : true;
      return {
        entries: await named(guildId, shown, await roleNames(guildId)),
        newer: hasNewer && first ? encodeCursor(first) : null,
        older: hasOlder && last ? encodeCursor(last) : null,
      };
    },

    async *export(guildId: string, query: AuditQuery): AsyncGenerator<AuditEntry[]> {
      const roles = await roleNames(guildId);
      let cursor: AuditCursor | null = null;
      let sent = 0;
      while (sent < MAX_EXPORT_ROWS) {
        const rows = await deps.auditLog.page(
          { ...query, guildId },
          { cursor, direction: 'older', limit: Math.min(EXPORT_BATCH, MAX_EXPORT_ROWS - sent) },
        );
        if (rows.length === 0) return;
        yield await named(guildId, rows, roles);
        sent += rows.length;
        const last = rows.at(-1)!;
        cursor = { at: last.at, id: last.id };
        if (rows.length < EXPORT_BATCH) return;
      }
    },
  };
}

/** The audit log of a server: filtered keyset pages, and every matching row for an export. */
export interface AuditBrowser {
  page(guildId: string, query: AuditQuery, at: { cursor: string | null; direction: 'older' | 'newer'; size?: number }): Promise<AuditPage>;
  /** Every matching row, newest first, a thousand at a time, at most {@link MAX_EXPORT_ROWS}. */
  export(guildId: string, query: AuditQuery): AsyncGenerator<AuditEntry[]>;
}
