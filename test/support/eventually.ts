/**
 * Resolves once `check` answers true, asking every `everyMs`; rejects after `timeoutMs`. The one way
 * a test waits: for the condition it means, never for a fixed time that is "long enough" here.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
