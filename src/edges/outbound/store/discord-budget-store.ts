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
  createMemoryBudgetStore,
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
 * What the holder counted in memory, merged into what the database has when it hands the buckets
 * back (the database's row changes meanwhile only by late answers of requests sent before the
 * hold): the row follows the later answer; while both count the same window (the same limit, ends
 * within the tolerance of {@link learnInto}) it keeps the larger count and the later end, and of
 * two windows it keeps the one that ends later (the one Discord counts now, with its count).
 */
function handedBack(current: BudgetRow | undefined, mine: BudgetRow): BudgetRow {
  if (!current) return mine;
  const [base, other] = mine.seenSentAt >= current.seenSentAt ? [mine, current] : [current, mine];
  const tolerance = Math.min(1_000, base.windowMs / 4);
  const sameWindow = base.limit === other.limit && Math.abs(base.windowEnd - other.windowEnd) <= tolerance;
  if (sameWindow) return { ...base, used: Math.max(base.used, other.used), windowEnd: Math.max(base.windowEnd, other.windowEnd) };
  return other.windowEnd > base.windowEnd ? { ...other, limit: base.limit, seenSentAt: base.seenSentAt } : base;
}

const rowOf = (raw: Raw): BudgetRow => ({
  limit: Number(raw.limit_count),
  windowMs: Number(raw.window_ms),
  windowEnd: Number(raw.window_end_ms),
  used: Number(raw.used),
  learned: Boolean(raw.learned),
  seenSentAt: raw.seen_sent_at_ms === null || raw.seen_sent_at_ms === undefined ? 0 : Number(raw.seen_sent_at_ms),
});

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
  const fail = (error: unknown) =>
    options.onError?.(
      new Error("the buckets counted while holding Discord's global limit were not read or written back", { cause: error }),
    );
  // Every process yields to another's hold of the global limit; only those told to claim one.
  const holder = createGlobalHolder(db, {
    id: options.id ?? randomUUID(),
    claim: options.claim ?? false,
    instanceLeaseMs: options.instanceLeaseMs ?? 15_000,
    now: clock,
    ...(options.onError ? { onError: options.onError } : {}),
    onRelease: () => void local().catch(fail),
  });

  /**
   * The buckets while this process holds the global limit: no other process sends meanwhile (each
   * yields until a handoff after the hold's end), so the holder counts them in memory, with the
   * embedded database's rule and clock, from what the database had when the hold began; they are
   * written back when the hold ends, before the others' yield does.
   */
  let own: {
    store: BudgetStore;
    rows: Map<string, BudgetRow>;
    /** The rows as read, and the answer each followed in the database's clock: written back as it was when no later answer came. */
    from: Map<string, { row: BudgetRow; seenSentAt: number }>;
  } | null = null;
  let switching: Promise<void> | null = null;
  let closing = false;
  /** Changes of the database's rows on their way: the holder reads the rows once they are in. */
  const writing = new Set<Promise<unknown>>();

  function tracked<T>(work: Promise<T>): Promise<T> {
    writing.add(work);
    void work.then(
      () => writing.delete(work),
      () => writing.delete(work),
    );
    return work;
  }

  /** The database's rows, in this process's clock (a time read after the answer: every window ends later here, never sooner). */
  async function begin(): Promise<void> {
    await Promise.allSettled([...writing, ...[...learnings.values()].map((b) => b.done)]);
    const rawRows = await queryRows<Raw>(
      db,
      sql`select b.key, b.limit_count, b.window_ms, extract(epoch from b.window_end) * 1000 as window_end_ms, b.used, b.learned,
                 extract(epoch from b.seen_sent_at) * 1000 as seen_sent_at_ms, extract(epoch from now()) * 1000 as now_ms
          from discord_budget b where b.key <> ${GLOBAL_KEY}`,
    );
    const local = clock();
    const rows = new Map<string, BudgetRow>();
    const from = new Map<string, { row: BudgetRow; seenSentAt: number }>();
    for (const raw of rawRows) {
      const row = rowOf(raw);
      const shift = local - Number(raw.now_ms);
      const mine = { ...row, windowEnd: row.windowEnd + shift, seenSentAt: row.seenSentAt > 0 ? row.seenSentAt + shift : 0 };
      rows.set(String(raw.key), mine);
      from.set(String(raw.key), { row: mine, seenSentAt: row.seenSentAt });
    }
    own = { store: createMemoryBudgetStore(clock, rows), rows, from };
  }

  /** Every bucket the holder changed, written back (each merged with what the database has, in the database's clock). */
  async function end(): Promise<void> {
    const counted = own!;
    own = null;
    // The buckets are independent rows: written side by side, so the write-back's time is a round
    // trip or two, not one per bucket, and it ends within the others' handoff wait.
    const changed = [...counted.rows].filter(([key, row]) => counted.from.get(key)?.row !== row);
    await Promise.all(
      changed.map(([key, row]) => {
        const read = counted.from.get(key);
        const askedAt = clock();
        return tracked(
          change(key, (current, now) => {
            // Read before the database answered: every time moves later in its clock, never sooner.
            const shift = now - askedAt;
            const seenSentAt =
              read && read.row.seenSentAt === row.seenSentAt ? read.seenSentAt : row.seenSentAt > 0 ? row.seenSentAt + shift : 0;
            const mine = { ...row, windowEnd: row.windowEnd + shift, seenSentAt };
            return { row: handedBack(current, mine), value: undefined };
          }),
        );
      }),
    );
  }

  /** The memory store while the process holds the global limit, else null; begins and ends it as the hold does. */
  async function local(): Promise<BudgetStore | null> {
    for (;;) {
      if (switching) {
        await switching.catch(() => undefined);
        continue;
      }
      const holding = !closing && holder.holds();
      if (holding === (own !== null)) return own?.store ?? null;
      switching = (holding ? begin() : end()).finally(() => {
        switching = null;
      });
      // A failed start counts in the database; a failed end leaves the rest to Discord's answers.
      await switching.catch(fail);
      if (holding && own === null) return null;
    }
  }

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
    yields = false,
  ): Promise<T> {
    // Who takes reads (and marks as wanted) another's hold of the global limit in the same statement.
    const withHold = yields ? sql`with ${holder.markHold} ` : sql``;
    const holdUntil = yields ? sql`(select until_ms from hold)` : sql`null`;
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
      const current: BudgetRow | undefined = raw!.version === null || raw!.version === undefined ? undefined : rowOf(raw!);
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
      const global = key === GLOBAL_KEY;
      const alone = global ? known?.alone : undefined;
      if (alone) {
        aloneLimit = alone;
        const counted = holder.take(alone);
        if (counted) return counted;
      }
      const memory = global ? null : await local();
      if (memory) return memory.take(key, lane, want, known);
      const askedAt = clock();
      // A bucket's take yields to another's hold as the global limit's does: the holder counts the
      // buckets in memory meanwhile, and writes them back before the yield ends.
      const yields = !global || alone !== undefined;
      const result = await tracked(
        change<TakeResult>(
          key,
          (current, now, holdUntil) => {
            const yielded = yields ? holder.sawHold(holdUntil, now) : null;
            if (yielded) return { row: current, value: yielded };
            const { row, result } = takeFrom(current, lane, want, now, known);
            return { row, value: result };
          },
          yields,
        ),
      );
      if (alone && result.granted > 0) holder.countShared(result.granted, result.windowLeftMs, askedAt);
      return result;
    },
    async answered(key, at) {
      if (key === GLOBAL_KEY) holder.answered(at);
    },
    async learn(key, seen) {
      const observedAt = clock();
      const memory = key === GLOBAL_KEY ? null : await local();
      // Each request as old as it is when it is counted (a hold's start or end may have kept it waiting).
      if (memory) return memory.learn(key, seen && olderBy(seen, clock() - observedAt));
      return learnShared(key, seen, observedAt);
    },
    blocked: async (key, retryAfterMs) => {
      if (key === GLOBAL_KEY && aloneLimit) holder.blocked(aloneLimit, retryAfterMs);
      const memory = key === GLOBAL_KEY ? null : await local();
      if (memory) return memory.blocked(key, retryAfterMs);
      await tracked(change(key, (current, now) => ({ row: blockedInto(current, retryAfterMs, now), value: undefined })));
    },
    async prune() {
      await own?.store.prune();
      await db.execute(sql`delete from discord_budget where window_end < now() - (interval '1 millisecond' * ${IDLE_MS})`);
    },
    async close() {
      // What the holder counted is in the database before its hold ends.
      closing = true;
      await local().catch(fail);
      await holder.close();
    },
  };

  /** An answer recorded in the database (see {@link learnings}). */
  function learnShared(key: string, seen: SeenLimit | null, observedAt: number): Promise<void> {
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
  }
}
