import type { Clock } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import { PatreonApiError, isPatreonApiError } from './errors';
import type { OAuthTokens } from './oauth';

/** Creator tokens as the store hands them back; `refreshFailedAt` lets the cooldown survive a restart. */
export interface StoredCreatorTokens extends OAuthTokens {
  refreshFailedAt?: Date | null;
}

/**
 * Where the creator's tokens live (the database implementation is elsewhere). `save` is called
 * with the rotated pair before the new access token is used, and should clear any recorded
 * refresh failure; `saveRefreshFailure` is optional.
 */
export interface CreatorTokenStore {
  load(): Promise<StoredCreatorTokens | null>;
  save(tokens: OAuthTokens): Promise<void>;
  saveRefreshFailure?(at: Date): Promise<void>;
  /**
   * Runs a refresh while no other process refreshes these tokens (a lock every instance on the
   * database shares). Patreon rotates the refresh token: two refreshing one pair at once, the
   * second is refused, and would mark good tokens failed. Without it, one process's callers share
   * one refresh.
   */
  exclusive?<T>(refresh: () => Promise<T>): Promise<T>;
}

/**
 * Refresh storms get a client's address blocked; production added a 10-minute cooldown after a
 * 401 (docs/patreon-api-notes.md §10, patreon-wordpress PR #181). We do the same on our side.
 */
export const REFRESH_COOLDOWN_MS = 10 * 60_000;

export interface CreatorSessionOptions {
  store: CreatorTokenStore;
  /** Usually `createOAuthClient(...).refreshToken`. */
  refresh: (refreshToken: string) => Promise<OAuthTokens>;
  clock: Clock;
  logger: Logger;
  refreshCooldownMs?: number;
}

export interface CreatorSessionStatus {
  connected: boolean;
  expiresAt: Date | null;
  refreshFailedAt: Date | null;
  /** Until when calls fail fast with `refresh_cooldown`. */
  cooldownUntil: Date | null;
}

export interface CreatorSession {
  /**
   * Runs `call` with the creator's access token. A 401 triggers one refresh (shared by all
   * concurrent callers) and one retry; a token past `expiresAt` is refreshed first.
   */
  withAccessToken<T>(call: (accessToken: string) => Promise<T>): Promise<T>;
  /** New tokens from the creator's `/connect`: saved, and any refresh failure forgotten. */
  replaceTokens(tokens: OAuthTokens): Promise<void>;
  status(): Promise<CreatorSessionStatus>;
}

const sameTokens = (a: OAuthTokens | null, b: OAuthTokens | null): boolean =>
  a !== null && b !== null && a.accessToken === b.accessToken && a.refreshToken === b.refreshToken;

/**
 * Holds the creator's tokens. The rotated refresh token is saved before the new access token is
 * used, so a crash cannot strand us with a spent refresh token. A failed refresh is remembered:
 * for `refreshCooldownMs` no refresh is tried and calls fail fast with `refresh_cooldown`, unless
 * the store meanwhile holds other tokens (the creator reconnected, or another instance refreshed).
 */
export function createCreatorSession(options: CreatorSessionOptions): CreatorSession {
  const { store, clock, logger } = options;
  const cooldownMs = options.refreshCooldownMs ?? REFRESH_COOLDOWN_MS;
  let tokens: OAuthTokens | null = null;
  /** Rotated tokens whose save failed: not used until saved. */
  let unsaved: OAuthTokens | null = null;
  let failedAt: Date | null = null;
  /** The pair whose refresh failed; other tokens in the store end the cooldown. */
  let failedPair: OAuthTokens | null = null;
  let refreshing: Promise<OAuthTokens> | null = null;
  let loaded = false;

  const sessionError = (
    kind: 'not_connected' | 'refresh_failed' | 'refresh_cooldown' | 'token_store_failed',
    message: string,
    cause?: unknown,
  ): PatreonApiError => new PatreonApiError({ kind, method: 'SESSION', path: 'creator', message, cause });

  const inCooldown = (): boolean => failedAt !== null && clock.now().getTime() - failedAt.getTime() < cooldownMs;

  async function load(): Promise<OAuthTokens> {
    if (unsaved) {
      try {
        await store.save(unsaved);
      } catch (e) {
        throw sessionError('token_store_failed', 'the refreshed creator tokens could not be saved', e);
      }
      tokens = unsaved;
      unsaved = null;
    }
    if (!loaded || tokens === null) {
      const stored = await store.load();
      loaded = true;
      if (stored) {
        tokens = { accessToken: stored.accessToken, refreshToken: stored.refreshToken, expiresAt: stored.expiresAt, scopes: stored.scopes };
        if (stored.refreshFailedAt && failedAt === null) {
          failedAt = stored.refreshFailedAt;
          failedPair = tokens;
        }
      }
    }
    if (!tokens) throw sessionError('not_connected', 'the creator has not connected a campaign yet (/connect)');
    return tokens;
  }

  /** During a cooldown, fails fast unless the store holds tokens other than the ones that failed. */
  async function checkCooldown(): Promise<void> {
    if (!inCooldown()) return;
    const stored = await store.load();
    if (stored && !sameTokens(stored, failedPair)) {
      tokens = { accessToken: stored.accessToken, refreshToken: stored.refreshToken, expiresAt: stored.expiresAt, scopes: stored.scopes };
      failedAt = null;
      failedPair = null;
      return;
    }
    const until = new Date((failedAt?.getTime() ?? 0) + cooldownMs);
    throw sessionError(
      'refresh_cooldown',
      `refreshing the creator token failed; not retried before ${until.toISOString()} (reconnect with /connect)`,
    );
  }

  /**
   * One refresh of `used` at a time, in this process and (through `store.exclusive`) in every
   * instance: whoever comes second finds the rotated pair in the store and uses it, or the failure
   * the first recorded, and refreshes nothing itself.
   */
  function refreshOnce(used: OAuthTokens): Promise<OAuthTokens> {
    if (tokens && tokens.accessToken !== used.accessToken) return Promise.resolve(tokens);
    const run = async (): Promise<OAuthTokens> => {
      const stored = await store.load();
      if (stored && stored.accessToken !== used.accessToken) {
        tokens = { accessToken: stored.accessToken, refreshToken: stored.refreshToken, expiresAt: stored.expiresAt, scopes: stored.scopes };
        return tokens;
      }
      // Another instance refreshed this pair and failed while we waited: its cooldown holds here too.
      if (stored?.refreshFailedAt && clock.now().getTime() - stored.refreshFailedAt.getTime() < cooldownMs) {
        failedAt = stored.refreshFailedAt;
        failedPair = used;
      }
      if (inCooldown()) throw sessionError('refresh_cooldown', 'refreshing the creator token failed recently; not retried yet');
      let next: OAuthTokens;
      try {
        next = await options.refresh(used.refreshToken);
      } catch (e) {
        // Refused because someone else (another program, the creator's /connect) replaced the pair meanwhile: theirs is good.
        const now = await store.load().catch(() => null);
        if (now && now.accessToken !== used.accessToken && now.refreshToken !== used.refreshToken) {
          tokens = { accessToken: now.accessToken, refreshToken: now.refreshToken, expiresAt: now.expiresAt, scopes: now.scopes };
          return tokens;
        }
        failedAt = clock.now();
        failedPair = used;
        logger.error(
          { kind: isPatreonApiError(e) ? e.kind : 'unknown', status: isPatreonApiError(e) ? e.status : null },
          'creator token refresh failed',
        );
        await store
          .saveRefreshFailure?.(failedAt)
          .catch((saveError: unknown) => logger.error({ err: saveError }, 'could not record the refresh failure'));
        throw sessionError('refresh_failed', 'refreshing the creator token failed', e);
      }
      try {
        await store.save(next);
      } catch (e) {
        unsaved = next;
        throw sessionError('token_store_failed', 'the refreshed creator tokens could not be saved', e);
      }
      tokens = next;
      failedAt = null;
      failedPair = null;
      logger.info({ expiresAt: next.expiresAt.toISOString() }, 'creator token refreshed');
      return next;
    };
    refreshing ??= (store.exclusive ? store.exclusive(run) : run()).finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  return {
    async withAccessToken(call) {
      await load();
      await checkCooldown();
      let current = await load();
      if (current.expiresAt.getTime() <= clock.now().getTime()) current = await refreshOnce(current);
      try {
        return await call(current.accessToken);
      } catch (e) {
        if (!isPatreonApiError(e, 'unauthorized')) throw e;
        const fresh = await refreshOnce(current);
        return call(fresh.accessToken);
      }
    },

    async replaceTokens(next) {
      await store.save(next);
      tokens = next;
      unsaved = null;
      loaded = true;
      failedAt = null;
      failedPair = null;
    },

    async status() {
      let current: OAuthTokens | null = tokens;
      if (!loaded) {
        try {
          current = await load();
        } catch {
          current = null;
        }
      }
      return {
        connected: current !== null,
        expiresAt: current?.expiresAt ?? null,
        refreshFailedAt: failedAt,
        cooldownUntil: inCooldown() && failedAt ? new Date(failedAt.getTime() + cooldownMs) : null,
      };
    },
  };
}
