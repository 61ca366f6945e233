import { type SQL, sql } from 'drizzle-orm';
import {
  type KnownLimit,
  SOLO_CLAIM_MS,
  SOLO_HANDOFF_MS,
  SOLO_HOLD_MS,
  SOLO_RENEW_MS,
  SOLO_RETRY_MS,
  GLOBAL_JITTER_MS,
  type TakeResult,
  answeredInLog,
  blockedLog,
  placeAfter,
  placeInLog,
  takeFromLog,
} from '../discord/request-budget';
import { type Db, queryRows } from './database';

type Raw = Record<string, unknown>;

const KEY = 'global';
/** A claim left waiting this long by a process that never confirmed it (it stopped) may be taken over. */
const STALE_CLAIM_MS = 5_000;
/** A hold is renewed only while the process sends: after this long without a request it lapses, and the next request claims again. */
const IDLE_RELEASE_MS = 30_000;

export interface GlobalHolderOptions {
  /**
   * This process's id. An instance passes the id of its heartbeat (`instances`), so that its own
   * row is not taken for another process's.
   */
  id: string;
  /** Whether this process may claim the global limit whole when it finds itself alone (false: it only yields to a holder). */
  claim: boolean;
  /** How long a heartbeat counts an instance as running (src/edges/outbound/store/instance-registry.ts). */
  instanceLeaseMs: number;
  /** A monotonic clock in ms. */
  now: () => number;
  /** A claim, a renewal or a release that failed (the process counts in the shared windows meanwhile). */
  onError?(error: unknown): void;
  /** The hold was given up, lost or lapsed (called once per hold, at once, without waiting). */
  onRelease?(): void;
}

/**
 * Discord's global limit counted whole by the one process that runs alone on a shared database
 * (docs/decisions.md §19). Instances sharing PostgreSQL count the global limit in short shared
 * windows, 35 a second, because Discord's second cannot be aligned with them; a process alone on
 * the database needs no share, and counts Discord's 50 a second itself, as one process on the
 * embedded database does, for as long as it holds `discord_global_holder`.
 *
 * - **Claim**: only when no other instance's heartbeat is live; the claim holds after
 *   {@link SOLO_CLAIM_MS} if no other process counted the global limit meanwhile (each such count
 *   writes `wanted_at`). Renewed every {@link SOLO_RENEW_MS} while the process sends; given up when
 *   another instance's heartbeat appears or another process counts.
 * - **Yield**: a process that finds another's hold counts nothing until {@link SOLO_HANDOFF_MS}
 *   after the hold's end.
 * - **The process's own log**: every request this process counts, alone or in the shared windows,
 *   is also placed in its own sliding log of Discord's second, so that the move from one count to
 *   the other never lets more than 50 of its own requests into one second.
 */
export interface GlobalHolder {
  /**
   * A take of the global limit answered by this process (it holds the limit, its own log is full,
   * or it waits for another's hold to end), or null: count it in the shared windows, then
   * {@link countShared}.
   */
  take(alone: KnownLimit): TakeResult | null;
  /** The shared windows granted `granted` requests, usable for `windowLeftMs` from `askedAt`: placed in the process's own log. */
  countShared(granted: number, windowLeftMs: number, askedAt: number): void;
  /**
   * What the shared take's read found of another's hold (`holdUntilMs`, the database's clock, null:
   * none): a refusal while it holds or its handoff runs.
   */
  sawHold(holdUntilMs: number | null, dbNowMs: number): TakeResult | null;
  /** The statement's part that marks another's claim or hold as wanted and reads its end (a `with` query named `hold`). */
  readonly markHold: SQL;
  /** Whether this process holds the global limit now (by its own clock, never past the hold's end in the database). */
  holds(): boolean;
  answered(at: number): void;
  blocked(alone: KnownLimit, retryAfterMs: number): void;
  close(): Promise<void>;
}

export function createGlobalHolder(db: Db, options: GlobalHolderOptions): GlobalHolder {
  const { id, now } = options;
  const ms = (n: number) => sql`(interval '1 millisecond' * ${n})`;
  const othersRunning = sql`exists (select 1 from instances where id <> ${id} and heartbeat_at > now() - ${ms(options.instanceLeaseMs)})`;
  /** The process's own requests, as a sliding log of Discord's second (`alone`). */
  let log: number[] = [];
  /** While held: until when (this process's clock, read before the database answered, so never later than the database's). */
  let heldUntil: number | null = null;
  /** This process counts nothing before then: another's hold and its handoff. */
  let yieldUntil = 0;
  let nextClaimAt = 0;
  let busy = false;
  let lastTake = now();
  let renewal: NodeJS.Timeout | undefined;
  let activation: NodeJS.Timeout | undefined;
  let closed = false;

  const refusal = (waitMs: number): TakeResult => ({ granted: 0, waitMs: Math.max(1, Math.ceil(waitMs)), windowLeftMs: 0 });
  const fail = (error: unknown) => options.onError?.(error);

  function drop(): void {
    const held = heldUntil !== null;
    heldUntil = null;
    if (held) options.onRelease?.();
    clearInterval(renewal);
    renewal = undefined;
    nextClaimAt = now() + SOLO_RETRY_MS;
  }

  async function hold(statement: SQL): Promise<boolean> {
    const asked = now();
    const [row] = await queryRows<Raw>(db, statement);
    if (!row || closed) return false;
    heldUntil = asked + (Number(row.until_ms) - Number(row.now_ms));
    return true;
  }

  async function activate(): Promise<void> {
    const held = await hold(sql`
      update discord_global_holder set until = now() + ${ms(SOLO_HOLD_MS)}
      where key = ${KEY} and holder = ${id} and until is null and wanted_at is null
        and claimed_at <= now() - ${ms(SOLO_CLAIM_MS)} and not ${othersRunning}
      returning extract(epoch from until) * 1000 as until_ms, extract(epoch from now()) * 1000 as now_ms`);
    if (!held) {
      nextClaimAt = now() + SOLO_RETRY_MS;
      return;
    }
    renewal = setInterval(() => void renew(), SOLO_RENEW_MS);
    renewal.unref();
  }

  async function renew(): Promise<void> {
    if (busy || heldUntil === null) return;
    busy = true;
    try {
      const idle = now() - lastTake > IDLE_RELEASE_MS;
      const held =
        !idle &&
        (await hold(sql`
          update discord_global_holder set until = now() + ${ms(SOLO_HOLD_MS)}
          where key = ${KEY} and holder = ${id} and until > now() and wanted_at is null and not ${othersRunning}
          returning extract(epoch from until) * 1000 as until_ms, extract(epoch from now()) * 1000 as now_ms`));
      if (!held) {
        drop();
        // Lapsed for want of requests, not taken away: the next request claims again at once.
        if (idle) nextClaimAt = 0;
      }
    } catch (error) {
      drop();
      fail(error);
    } finally {
      busy = false;
    }
  }

  async function claim(): Promise<void> {
    busy = true;
    try {
      const [row] = await queryRows<Raw>(
        db,
        sql`insert into discord_global_holder (key, holder, claimed_at, until, wanted_at)
            select ${KEY}, ${id}, now(), null, null where not ${othersRunning}
            on conflict (key) do update set holder = excluded.holder, claimed_at = excluded.claimed_at, until = null, wanted_at = null
              where (discord_global_holder.until is null and discord_global_holder.claimed_at < now() - ${ms(STALE_CLAIM_MS)})
                 or discord_global_holder.until < now() - ${ms(SOLO_HANDOFF_MS)}
            returning key`,
      );
      if (!row || closed) {
        nextClaimAt = now() + SOLO_RETRY_MS;
        return;
      }
      activation = setTimeout(() => {
        activation = undefined;
        busy = true;
        activate()
          .catch((error: unknown) => {
            drop();
            fail(error);
          })
          .finally(() => {
            busy = false;
          });
      }, SOLO_CLAIM_MS + 100);
      activation.unref();
    } catch (error) {
      nextClaimAt = now() + SOLO_RETRY_MS;
      fail(error);
    } finally {
      busy = false;
    }
  }

  return {
    take(alone) {
      const t = now();
      lastTake = t;
      if (t < yieldUntil) return refusal(yieldUntil - t);
      if (options.claim && !closed && heldUntil === null && !busy && activation === undefined && t >= nextClaimAt) {
        nextClaimAt = Number.POSITIVE_INFINITY;
        void claim();
      }
      if (heldUntil !== null && t < heldUntil) {
        // Alone: one request a take, its place moved to its answer by `answered`.
        const { times, result } = takeFromLog(log, 1, t, alone);
        log = times;
        return result;
      }
      log = log.slice(placeAfter(log, t - alone.windowMs));
      if (log.length >= alone.limit) return refusal(log[log.length - alone.limit]! + alone.windowMs - t);
      return null;
    },

    countShared(granted, windowLeftMs, askedAt) {
      // Each may be sent until the window's end and reach Discord a jitter later: counted there.
      placeInLog(log, granted, askedAt + windowLeftMs + GLOBAL_JITTER_MS);
    },

    sawHold(holdUntilMs, dbNowMs) {
      if (holdUntilMs === null || holdUntilMs + SOLO_HANDOFF_MS <= dbNowMs) return null;
      // Read after the database answered: never earlier than the hold's end as the database counts it.
      const t = now();
      yieldUntil = Math.max(yieldUntil, t + (holdUntilMs - dbNowMs) + SOLO_HANDOFF_MS);
      return refusal(yieldUntil - t);
    },

    markHold: sql`hold as (
      update discord_global_holder set wanted_at = now()
      where key = ${KEY} and holder <> ${id} and (until is null or until > now() - ${ms(SOLO_HANDOFF_MS)})
      returning extract(epoch from until) * 1000 as until_ms)`,

    holds: () => heldUntil !== null && now() < heldUntil,

    answered(at) {
      answeredInLog(log, at, now());
    },

    blocked(alone, retryAfterMs) {
      blockedLog(log, alone, retryAfterMs, now());
    },

    async close() {
      closed = true;
      clearTimeout(activation);
      const held = heldUntil !== null;
      drop();
      if (!held) return;
      // Others wait for the handoff from now, not from the hold's end.
      await db.execute(
        sql`update discord_global_holder set until = least(until, now()) where key = ${KEY} and holder = ${id} and until is not null`,
      );
    },
  };
}
