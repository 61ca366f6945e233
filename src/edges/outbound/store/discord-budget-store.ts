import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import {
  type BudgetRow,
  type BudgetStore,
  type KnownLimit,
  type SeenLimit,
  GLOBAL_KEY,
  IDLE_MS,
  type TakeResult,
  blockedInto,
  learnInto,
  takeFrom,
} from '../discord/request-budget';
import { type Db, queryRows } from './database';
import { type GlobalHolderOptions, createGlobalHolder } from './discord-global-holder';

type Raw = Record<string, unknown>;

/** Compare-and-swap attempts before a take gives up (each loses only to another instance's write of the same row). */
const MAX_ATTEMPTS = 50;

const same = (a: BudgetRow | undefined, b: BudgetRow | undefined) =>
  a !== undefined &&
  b !== undefined &&
  a.limit === b.limit &&
  a.windowMs === b.windowMs &&
  a.windowEnd === b.windowEnd &&
  a.used === b.used &&
  a.learned === b.learned &&
  a.seenSentAt === b.seenSentAt;

interface LearnBatch {
  answers: Array<{ seen: SeenLimit | null; observedAt: number }>;
  /** Its change has begun: a later answer starts the next batch. */
  started: boolean;
  done: Promise<void>;
}

/**
 * An answer read `ms` before it is recorded: its request is that much older (its place in Discord's
 * order). Its window is left to end as late as if read now: later than Discord's, never sooner, as
 * for any answer recorded a round trip after it was read.
 */
function olderBy(seen: SeenLimit, ms: number): SeenLimit {
  return ms <= 0 ? seen : { ...seen, ageMs: (seen.ageMs ?? 0) + ms };
}

/**
 * Discord's request budget in PostgreSQL, shared by every instance of the installation
 * (docs/decisions.md §19). Each change reads the row with the database's clock, applies the rule of
 * src/edges/outbound/discord/request-budget.ts, and writes it back only if nobody wrote it meanwhile
 * (`version`); otherwise it reads again. A refused take writes nothing. Every time is the
 * database's, so instances whose clocks disagree still agree on when a window ends.
 */
export function createPostgresBudgetStore(db: Db, options: Partial<GlobalHolderOptions> = {}): BudgetStore {
  const clock = options.now ?? (() => performance.now());
  // Every process yields to another's hold of the global limit; only those told to claim one.
  const holder = createGlobalHolder(db, {
    id: options.id ?? randomUUID(),
    claim: options.claim ?? false,
    instanceLeaseMs: options.instanceLeaseMs ?? 15_000,
    now: clock,
    ...(options.onError ? { onError: options.onError } : {}),
  });

  /**
   * Answers of one bucket recorded in one change: while a key's change is on its way, the answers
   * that arrive meanwhile wait for it and are then applied together, in the order they came (a
   * bucket answered 50 times a second cost 2 statements an answer, and more when they collided).
   */
  const learnings = new Map<string, LearnBatch>();
  /** The global limit as one process counts it, once a take said (a 429 fills this process's own count too). */
  let aloneLimit: KnownLimit | undefined;

  async function change<T>(
    key: string,
    rule: (row: BudgetRow | undefined, now: number, holdUntil: number | null) => { row: BudgetRow | undefined; value: T },
  ): Promise<T> {
    // Who counts the global limit reads (and marks as wanted) another's hold of it in the same statement.
    const withHold = key === GLOBAL_KEY ? sql`with ${holder.markHold} ` : sql``;
    const holdUntil = key === GLOBAL_KEY ? sql`(select until_ms from hold)` : sql`null`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const [raw] = await queryRows<Raw>(
        db,
        sql`${withHold}select b.limit_count, b.window_ms, extract(epoch from b.window_end) * 1000 as window_end_ms, b.used, b.learned, b.version,
                   extract(epoch from b.seen_sent_at) * 1000 as seen_sent_at_ms, extract(epoch from n.now) * 1000 as now_ms,
                   ${holdUntil} as hold_until_ms
            from (select now() as now) n left join discord_budget b on b.key = ${key}`,
      );
      const now = Number(raw!.now_ms);
      const holdUntilMs = raw!.hold_until_ms === null || raw!.hold_until_ms === undefined ? null : Number(raw!.hold_until_ms);
      const current: BudgetRow | undefined =
        raw!.version === null || raw!.version === undefined
          ? undefined
          : {
              limit: Number(raw!.limit_count),
              windowMs: Number(raw!.window_ms),
              windowEnd: Number(raw!.window_end_ms),
              used: Number(raw!.used),
              learned: Boolean(raw!.learned),
              seenSentAt: raw!.seen_sent_at_ms === null || raw!.seen_sent_at_ms === undefined ? 0 : Number(raw!.seen_sent_at_ms),
            };
      const { row, value } = rule(current, now, holdUntilMs);
      if (!row || same(row, current)) return value;
      const end = sql`to_timestamp(${row.windowEnd / 1000})`;
      const seenSentAt = row.seenSentAt > 0 ? sql`to_timestamp(${row.seenSentAt / 1000})` : sql`null`;
      const written = current
        ? await queryRows<Raw>(
            db,
            sql`update discord_budget set limit_count = ${row.limit}, window_ms = ${row.windowMs}, window_end = ${end},
                  used = ${row.used}, learned = ${row.learned}, seen_sent_at = ${seenSentAt}, version = version + 1
                where key = ${key} and version = ${Number(raw!.version)} returning key`,
          )
        : await queryRows<Raw>(
            db,
            sql`insert into discord_budget (key, limit_count, window_ms, window_end, used, learned, seen_sent_at, version)
                values (${key}, ${row.limit}, ${row.windowMs}, ${end}, ${row.used}, ${row.learned}, ${seenSentAt}, 1)
                on conflict (key) do nothing returning key`,
          );
      if (written.length > 0) return value;
    }
    throw new Error(`the Discord request budget of ${key} stayed contended through ${MAX_ATTEMPTS} attempts`);
  }

  return {
    shared: true,
    async take(key, lane, want, known) {
      // One process's sliding log has no place here: instances count the global limit in windows (globalBudgetOf).
      if (known?.counting === 'sliding')
        throw new Error(`the shared Discord request budget counts ${key} in windows, not as a sliding log`);
      const alone = key === GLOBAL_KEY ? known?.alone : undefined;
      if (alone) {
        aloneLimit = alone;
        const own = holder.take(alone);
        if (own) return own;
      }
      const askedAt = clock();
      const result = await change<TakeResult>(key, (current, now, holdUntil) => {
        const yielded = alone ? holder.sawHold(holdUntil, now) : null;
        if (yielded) return { row: current, value: yielded };
        const { row, result } = takeFrom(current, lane, want, now, known);
        return { row, value: result };
      });
      if (alone && result.granted > 0) holder.countShared(result.granted, result.windowLeftMs, askedAt);
      return result;
    },
    async answered(key, at) {
      if (key === GLOBAL_KEY) holder.answered(at);
    },
    learn(key, seen) {
      const observedAt = clock();
      const queued = learnings.get(key);
      if (queued && !queued.started) {
        queued.answers.push({ seen, observedAt });
        return queued.done;
      }
      const batch: LearnBatch = { answers: [{ seen, observedAt }], started: false, done: Promise.resolve() };
      const before = queued?.done ?? Promise.resolve();
      batch.done = (async () => {
        await before.catch(() => undefined);
        batch.started = true;
        const appliedAt = clock();
        await change(key, (current, now) => ({
          // In the order they were read, each request as old as it is now.
          row: batch.answers.reduce<BudgetRow | undefined>(
            (row, a) => learnInto(row, a.seen && olderBy(a.seen, appliedAt - a.observedAt), now) ?? row,
            current,
          ),
          value: undefined,
        }));
      })().finally(() => {
        if (learnings.get(key) === batch) learnings.delete(key);
      });
      learnings.set(key, batch);
      return batch.done;
    },
    blocked: async (key, retryAfterMs) => {
      if (key === GLOBAL_KEY && aloneLimit) holder.blocked(aloneLimit, retryAfterMs);
      await change(key, (current, now) => ({ row: blockedInto(current, retryAfterMs, now), value: undefined }));
    },
    async prune() {
      await db.execute(sql`delete from discord_budget where window_end < now() - (interval '1 millisecond' * ${IDLE_MS})`);
    },
    close: () => holder.close(),
  };
}
