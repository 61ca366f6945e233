import type { Clock } from '../../shared/clock';

/** One secret a delivery may be signed with, and whose it is. */
export interface WebhookSecret {
  secret: string;
  /** The campaign of the stored webhook; null for PATREON_WEBHOOK_SECRET (a hand-registered webhook). */
  campaignId: string | null;
  webhookId: string | null;
}

export interface WebhookSecretProvider {
  candidates(): Promise<readonly WebhookSecret[]>;
  /**
   * Called when no candidate matched: re-reads the stored secrets (a webhook another instance just
   * registered) and returns them, or null when it re-read too recently or nothing changed.
   */
  refresh?(): Promise<readonly WebhookSecret[] | null>;
}

export interface WebhookSecretsOptions {
  /** The stored webhooks' secrets, decrypted (`webhookRepository.secrets`). */
  load(): Promise<ReadonlyArray<{ secret: string; campaignId: string; webhookId: string }>>;
  /** PATREON_WEBHOOK_SECRET, when set. */
  staticSecret?: string | undefined;
  clock: Clock;
  /** How long a loaded list is used without looking again. Default 60 s. */
  ttlMs?: number;
  /** The least time between two re-reads forced by unmatched signatures. Default 1 s. */
  minRefreshIntervalMs?: number;
}

export type WebhookSecrets = WebhookSecretProvider & {
  /** Drops the cached list (registration calls it after storing a new secret). */
  invalidate(): void;
};

/**
 * The endpoint's candidate secrets: every stored webhook secret plus PATREON_WEBHOOK_SECRET, cached
 * so a delivery costs no decryption. An unmatched signature may force a re-read, at most once per
 * `minRefreshIntervalMs`, so forged deliveries cannot turn into a database load.
 */
export function createWebhookSecrets(options: WebhookSecretsOptions): WebhookSecrets {
  const ttlMs = options.ttlMs ?? 60_000;
  const minRefreshMs = options.minRefreshIntervalMs ?? 1000;
  const fixed: WebhookSecret[] = options.staticSecret ? [{ secret: options.staticSecret, campaignId: null, webhookId: null }] : [];
  let cached: { at: number; list: readonly WebhookSecret[] } | null = null;
  let loading: Promise<readonly WebhookSecret[]> | null = null;
  let lastLoadAt = Number.NEGATIVE_INFINITY;

  function load(): Promise<readonly WebhookSecret[]> {
    loading ??= (async () => {
      const at = options.clock.now().getTime();
      lastLoadAt = at;
      const stored = await options.load();
      const list = [...stored.map((s) => ({ secret: s.secret, campaignId: s.campaignId, webhookId: s.webhookId })), ...fixed];
      cached = { at, list };
      return list;
    })().finally(() => {
      loading = null;
    });
    return loading;
  }

  const key = (list: readonly WebhookSecret[]) =>
    list
      .map((s) => `${s.webhookId}\u0000${s.secret}`)
      .sort()
      .join('\u0001');

  return {
    async candidates() {
      if (cached && options.clock.now().getTime() - cached.at < ttlMs) return cached.list;
      return load();
    },
    async refresh() {
      if (options.clock.now().getTime() - lastLoadAt < minRefreshMs) return null;
      const before = cached ? key(cached.list) : null;
      const list = await load();
      return key(list) === before ? null : list;
    },
    invalidate() {
      cached = null;
      lastLoadAt = Number.NEGATIVE_INFINITY;
    },
  };
}
