import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What entitles a piece of work to act (docs/outages-and-fencing.md): a fencing token the database checks
 * at the write, so an instance that was paused (a stopped process, a long collection, a frozen
 * virtual machine) and resumes acts on nothing another instance took over meanwhile.
 *
 * - `shard`: an event of a gateway shard, acted on while this instance still holds the shard's
 *   lease at the generation it took it with;
 * - `work`: a queued row (a webhook delivery, a job), acted on while this worker still holds the
 *   row's lease, claimed as attempt `attempts`.
 */
export type Fence =
  | { kind: 'shard'; shardId: number; holder: string; generation: number }
  | { kind: 'work'; queue: 'webhook_inbox' | 'jobs'; id: number; attempts: number };

/** The fence no longer holds: the work belongs to someone else now and was not done here. */
export class LeaseLostError extends Error {
  constructor(readonly fence: Fence) {
    super(
      fence.kind === 'shard'
        ? `the lease of gateway shard ${fence.shardId} (generation ${fence.generation}) is no longer held by this instance`
        : `the lease of ${fence.queue} row ${fence.id} (attempt ${fence.attempts}) is no longer held by this worker`,
    );
  }

  override get name(): string {
    return 'LeaseLostError';
  }
}

/**
 * The fence of the work running now, carried along the async calls of that work (an event handler,
 * a queued row's handler) down to the one place that writes before acting, the role applier, without
 * every layer in between passing it on.
 */
export interface FenceScope {
  run<T>(fence: Fence, task: () => Promise<T>): Promise<T>;
  current(): Fence | null;
}

export function createFenceScope(): FenceScope {
  const storage = new AsyncLocalStorage<Fence>();
  return {
    run: (fence, task) => storage.run(fence, task),
    current: () => storage.getStore() ?? null,
  };
}
