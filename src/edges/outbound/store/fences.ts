import { type SQL, sql } from 'drizzle-orm';
import type { Fence } from '../../../shared/fence';
import { type Db, queryRows } from './database';

/**
 * The condition, in SQL, under which `fence` still holds (docs/outages-and-fencing.md): the shard's lease
 * row names this holder and generation and has not expired by the database's clock; the queued row
 * is still pending, claimed as this attempt, and its lease runs past `now` (the worker's clock, as
 * the claim wrote it).
 */
export function fenceHolds(fence: Fence, now: Date): SQL {
  if (fence.kind === 'shard') {
    return sql`exists (select 1 from shard_leases where shard_id = ${fence.shardId} and holder = ${fence.holder}
                       and generation = ${fence.generation} and expires_at > now())`;
  }
  return sql`exists (select 1 from ${sql.identifier(fence.queue)} where id = ${fence.id} and attempts = ${fence.attempts}
                     and status = 'pending' and locked_until > ${now})`;
}

/** Claims of interactions are kept this long: three times Discord's five minutes of a signed request. */
export const INTERACTION_CLAIM_RETENTION_MS = 15 * 60_000;

export function createFences(db: Db): Fences {
  let lastPrune = 0;
  return {
    async holds(fence: Fence, now: Date): Promise<boolean> {
      const [row] = await queryRows<{ ok: boolean }>(db, sql`select ${fenceHolds(fence, now)} as ok`);
      return row?.ok === true;
    },

    async claimInteraction(id: string, holder: string, fence: Fence | null, now: Date): Promise<boolean> {
      const condition = fence ? fenceHolds(fence, now) : sql`true`;
      const rows = await queryRows<{ id: string }>(
        db,
        sql`insert into interaction_claims (id, holder, claimed_at) select ${id}, ${holder}, now() where ${condition}
            on conflict (id) do nothing returning id`,
      );
      if (now.getTime() - lastPrune > 60_000) {
        lastPrune = now.getTime();
        await db
          .execute(
            sql`delete from interaction_claims where claimed_at < now() - (interval '1 millisecond' * ${INTERACTION_CLAIM_RETENTION_MS})`,
          )
          .catch(() => undefined);
      }
      return rows.length > 0;
    },
  };
}

/**
 * Fences checked on their own (an event before its handler runs), and the claims of interactions:
 * one statement writes the claim only when the interaction is new and the fence holds, so a replay
 * and an event of a lost hold are both dropped.
 */
export interface Fences {
  holds(fence: Fence, now: Date): Promise<boolean>;
  /**
   * Takes interaction `id` for `holder`: true when this is its first delivery and `fence` (when
   * given) holds. Claims older than {@link INTERACTION_CLAIM_RETENTION_MS} are deleted now and then.
   */
  claimInteraction(id: string, holder: string, fence: Fence | null, now: Date): Promise<boolean>;
}
