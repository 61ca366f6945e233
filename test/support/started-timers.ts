import { createHook } from 'node:async_hooks';

/** What Node keeps of a timer: its delay, whether it repeats, whether it was cleared or ran. */
export interface TimerState {
  _idleTimeout: number;
  _repeat: number | null;
  _destroyed: boolean;
}

/**
 * The timers started while `run` ran, unref'd ones too: a timer that does not keep the process
 * running still holds everything its callback reaches until it runs, so "stopped" means none left.
 */
export async function timersStartedBy(run: () => unknown): Promise<TimerState[]> {
  const started: TimerState[] = [];
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'Timeout') started.push(resource as TimerState);
    },
  }).enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return started;
}

/** Those of `timers` still to run: their delay and whether they repeat. */
export const pendingTimers = (timers: TimerState[]) =>
  timers.filter((t) => !t._destroyed).map((t) => ({ ms: t._idleTimeout, repeats: t._repeat !== null }));
