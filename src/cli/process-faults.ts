import type { Logger } from '../shared/logger';

/**
 * The last line of defence for a promise whose rejection nobody handled (eslint's
 * no-floating-promises keeps them out of the code; a dependency may still leak one). Node's default
 * ends the process, and with it every delivery and request in flight, for one failed background
 * task: here it is logged as the bug it is and the service keeps serving. Each rejection is counted
 * in `tierlink_unhandled_rejections_total` when `count` is given.
 */
export function handleUnhandledRejections(deps: { process: Pick<NodeJS.Process, 'on'>; logger: Logger; count?(): void }): void {
  deps.process.on('unhandledRejection', (reason: unknown) => {
    deps.count?.();
    deps.logger.error(
      { err: reason instanceof Error ? reason : new Error(String(reason)) },
      'a promise was rejected and nothing handled it; Tierlink logs it and keeps serving (a bug: please report it)',
    );
  });
}
