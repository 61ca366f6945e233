/**
 * `work`'s value, or `late()`'s if `ms` pass first. The timer ends with whichever comes first, so
 * a wait that was answered leaves nothing behind: a pending timer holds all its callback reaches
 * (the server, the worker, the report) until it runs. `late` may throw: the result then rejects.
 */
export async function within<T, L>(work: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
