import type { Clock } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { OddValue } from './attribute-reader';
import type { KeyValueStore } from './dialect';

/** One kind of odd value (a resource type, an attribute, what came instead), with an example and how often. */
export interface OddValueEntry {
  type: string;
  attribute: string;
  found: string;
  /** The last resource it was seen on. */
  exampleId: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
}

/**
 * The odd values Patreon answered lately (src/edges/outbound/patreon/attribute-reader.ts,
 * {@link OddValue}): labels null or missing where the documentation promises a value. Tolerated
 * where they occur; kept here, in the database, so that `/doctor` on any instance (and after a
 * `npm run sync` in another process) can say what Patreon sent and since when.
 */
export interface OddValueLog {
  /** Notes one odd value (cheap: a new kind is written at once, repeats at most every {@link WRITE_EVERY_MS}). */
  note(odd: OddValue): void;
  /** The kinds seen in the last {@link KEPT_MS}, most recent first, this process's and the others'. */
  list(): Promise<OddValueEntry[]>;
  /** Writes what is not written yet (at shutdown). */
  flush(): Promise<void>;
}

/** Kinds of odd value kept: past it the oldest goes. */
export const MAX_KINDS = 20;
/** A kind not seen again for this long is forgotten (Patreon fixed it). */
export const KEPT_MS = 7 * 24 * 60 * 60_000;
/** Repeats of known kinds are written at most this often. */
export const WRITE_EVERY_MS = 60_000;

const STORE_KEY = 'patreon-odd-values';

const kindOf = (e: Pick<OddValueEntry, 'type' | 'attribute' | 'found'>) => `${e.type}\u0000${e.attribute}\u0000${e.found}`;

function isEntry(value: unknown): value is OddValueEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    ['type', 'attribute', 'found', 'exampleId', 'firstSeen', 'lastSeen'].every((k) => typeof e[k] === 'string') &&
    typeof e.count === 'number'
  );
}

/** Merges entries of one kind: the counts add up, the span covers both. */
function merged(a: OddValueEntry, b: OddValueEntry): OddValueEntry {
  const later = a.lastSeen >= b.lastSeen ? a : b;
  return {
    ...later,
    count: a.count + b.count,
    firstSeen: a.firstSeen <= b.firstSeen ? a.firstSeen : b.firstSeen,
  };
}

export function createOddValueLog(deps: { store?: KeyValueStore; clock: Clock; logger: Logger }): OddValueLog {
  const { clock, logger } = deps;
  /** Seen by this process and not written yet (counts since the last write). */
  const pending = new Map<string, OddValueEntry>();
  /** Kinds this process has written or warned about: a new one is written at once. */
  const known = new Set<string>();
  let lastWrite = 0;
  let writing: Promise<void> = Promise.resolve();

  const fresh = (entries: readonly OddValueEntry[]) => {
    const since = new Date(clock.now().getTime() - KEPT_MS).toISOString();
    return entries
      .filter((e) => e.lastSeen >= since)
      .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : -1))
      .slice(0, MAX_KINDS);
  };

  async function stored(): Promise<OddValueEntry[]> {
    if (!deps.store) return [];
    const value = await deps.store.get<unknown>(STORE_KEY);
    return Array.isArray(value) ? value.filter(isEntry) : [];
  }

  function write(): Promise<void> {
    if (!deps.store || pending.size === 0) return writing;
    const batch = [...pending.values()];
    pending.clear();
    lastWrite = clock.now().getTime();
    const store = deps.store;
    writing = writing
      .then(async () => {
        const byKind = new Map((await stored()).map((e) => [kindOf(e), e]));
        for (const e of batch) {
          const before = byKind.get(kindOf(e));
          byKind.set(kindOf(e), before ? merged(before, e) : e);
        }
        await store.set(STORE_KEY, fresh([...byKind.values()]));
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'recording an odd value from the membership service failed'));
    return writing;
  }

  return {
    note(odd) {
      const at = clock.now().toISOString();
      const entry: OddValueEntry = {
        type: odd.type,
        attribute: odd.attribute,
        found: odd.found,
        exampleId: odd.id,
        count: 1,
        firstSeen: at,
        lastSeen: at,
      };
      const kind = kindOf(entry);
      const before = pending.get(kind);
      pending.set(kind, before ? merged(before, entry) : entry);
      if (!known.has(kind)) {
        known.add(kind);
        logger.warn(
          { type: odd.type, id: odd.id, attribute: odd.attribute, found: odd.found },
          'the membership service answered an odd value; tolerated (it labels only) and reported by /doctor',
        );
        void write();
      } else if (clock.now().getTime() - lastWrite >= WRITE_EVERY_MS) {
        void write();
      }
    },
    async list() {
      const byKind = new Map((await stored()).map((e) => [kindOf(e), e]));
      for (const e of pending.values()) {
        const before = byKind.get(kindOf(e));
        byKind.set(kindOf(e), before ? merged(before, e) : e);
      }
      return fresh([...byKind.values()]);
    },
    flush: () => write(),
  };
}
