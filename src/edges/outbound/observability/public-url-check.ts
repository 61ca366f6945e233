import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../shared/logger';

export interface PublicUrlCheck {
  /** PUBLIC_URL as the service uses it (no trailing slash). */
  publicUrl: string;
  logger: Logger;
  /** Aborted when the service stops. */
  signal?: AbortSignal;
  /** Tries before the warning (a proxy or Caddy may still be starting, or fetching its certificate). */
  attempts?: number;
  delayMs?: number;
  fetch?: typeof fetch;
}

/**
 * After start-up, asks `$PUBLIC_URL/healthz` whether people and Patreon can reach this service
 * there: the OAuth redirect, the webhook and every link Tierlink hands out are built from it, and a
 * wrong one fails only in a patron's browser. A Tierlink answers `{"ok": …}`; anything else (no
 * answer, another server, a 404) is one warning naming PUBLIC_URL and the fix. It never stops the
 * service: a server that cannot reach its own public address (some networks) still works.
 * Resolves true when the address answered as Tierlink.
 */
export async function checkPublicUrl(check: PublicUrlCheck): Promise<boolean> {
  const attempts = check.attempts ?? 3;
  const doFetch = check.fetch ?? fetch;
  let problem = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (check.signal?.aborted) return false;
    try {
      const response = await doFetch(`${check.publicUrl}/healthz`, {
        redirect: 'follow',
        signal: check.signal ? AbortSignal.any([check.signal, AbortSignal.timeout(5000)]) : AbortSignal.timeout(5000),
      });
      const body = (await response.json().catch(() => null)) as { ok?: unknown } | null;
      if ((response.status === 200 || response.status === 503) && typeof body?.ok === 'boolean') return true;
      problem = `it answered ${response.status} and not as Tierlink: it reaches another server`;
    } catch (error) {
      if (check.signal?.aborted) return false;
      const cause = (error as { cause?: { code?: string } }).cause;
      problem = `no answer (${cause?.code ?? (error as Error).name})`;
    }
    if (attempt < attempts) {
      try {
        await sleep(check.delayMs ?? 20_000, undefined, { ref: false, ...(check.signal ? { signal: check.signal } : {}) });
      } catch {
        return false;
      }
    }
  }
  check.logger.warn(
    { publicUrl: check.publicUrl },
    `PUBLIC_URL ${check.publicUrl} does not reach this Tierlink (GET /healthz: ${problem}): set PUBLIC_URL to the https address people and Patreon reach it at (docs/operating.md, "HTTPS"), and register ${check.publicUrl}/oauth/callback on Patreon's portal → My Clients → your client.`,
  );
  return false;
}
