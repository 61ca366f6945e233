/**
 * Promises that settle on an event or time out, all cancellable at close so no timer outlives the
 * sandbox (jest's open-handle check).
 */
export class Waiters {
  private readonly pending = new Set<(error: Error) => void>();

  /**
   * `subscribe` registers a listener that calls `resolve` when the awaited thing happens (or `reject`
   * when it never will) and returns its unsubscribe function.
   */
  wait<T>(
    timeoutMs: number,
    timeoutMessage: string,
    subscribe: (resolve: (value: T) => void, reject: (error: Error) => void) => () => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let unsubscribe: (() => void) | null = null;
      const finish = (): void => {
        settled = true;
        clearTimeout(timer);
        this.pending.delete(cancel);
        unsubscribe?.();
      };
      const cancel = (error: Error): void => {
        if (settled) return;
        finish();
        reject(error);
      };
      const timer = setTimeout(() => cancel(new Error(timeoutMessage)), timeoutMs);
      this.pending.add(cancel);
      unsubscribe = subscribe((value) => {
        if (settled) return;
        finish();
        resolve(value);
      }, cancel);
      if (settled) unsubscribe();
    });
  }

  cancelAll(): void {
    for (const cancel of [...this.pending]) cancel(new Error('the Discord sandbox was closed'));
  }
}
