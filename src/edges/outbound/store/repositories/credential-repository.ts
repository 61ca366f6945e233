import { eq } from 'drizzle-orm';
import type { SealContext, SecretBox } from '../secret-box';
import type { Db } from '../database';
import { creatorCredentials } from '../schema';

/** The creator's OAuth tokens, sealed with SECRET_KEY (bound to their row and column) before they reach the database. */
export interface CredentialRepository {
  load(creatorUserId: string): Promise<CreatorTokens | null>;
  /** Saves both tokens in one statement: a rotated refresh token is never half-written. */
  save(creatorUserId: string, tokens: CreatorTokens, now: Date): Promise<void>;
  markRefreshFailed(creatorUserId: string, error: string, now: Date): Promise<void>;
  status(
    creatorUserId: string,
  ): Promise<{ expiresAt: Date | null; scopes: string; refreshFailedAt: Date | null; refreshError: string | null; updatedAt: Date } | null>;
  creators(): Promise<string[]>;
}

export interface CreatorTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date | null;
  scopes: string[];
}

/** Where a creator's token is sealed: its column of the creator's row (src/edges/outbound/store/secret-box.ts). */
export const credentialSeal = (creatorUserId: string, column: 'access_token_enc' | 'refresh_token_enc'): SealContext => ({
  table: 'creator_credentials',
  column,
  row: creatorUserId,
});

export function createCredentialRepository(db: Db, box: SecretBox): CredentialRepository {
  return {
    async load(creatorUserId: string): Promise<CreatorTokens | null> {
      const [row] = await db.select().from(creatorCredentials).where(eq(creatorCredentials.creatorUserId, creatorUserId));
      if (!row) return null;
      return {
        accessToken: box.decrypt(row.accessTokenEnc, credentialSeal(creatorUserId, 'access_token_enc')),
        refreshToken: box.decrypt(row.refreshTokenEnc, credentialSeal(creatorUserId, 'refresh_token_enc')),
        expiresAt: row.expiresAt,
        scopes: row.scopes.split(' ').filter(Boolean),
      };
    },

    async save(creatorUserId: string, tokens: CreatorTokens, now: Date): Promise<void> {
      const values = {
        accessTokenEnc: box.encrypt(tokens.accessToken, credentialSeal(creatorUserId, 'access_token_enc')),
        refreshTokenEnc: box.encrypt(tokens.refreshToken, credentialSeal(creatorUserId, 'refresh_token_enc')),
        expiresAt: tokens.expiresAt,
        scopes: tokens.scopes.join(' '),
        refreshFailedAt: null,
        refreshError: null,
        updatedAt: now,
      };
      await db
        .insert(creatorCredentials)
        .values({ creatorUserId, ...values })
        .onConflictDoUpdate({ target: creatorCredentials.creatorUserId, set: values });
    },

    async markRefreshFailed(creatorUserId: string, error: string, now: Date): Promise<void> {
      await db
        .update(creatorCredentials)
        .set({ refreshFailedAt: now, refreshError: error.slice(0, 500) })
        .where(eq(creatorCredentials.creatorUserId, creatorUserId));
    },

    async status(creatorUserId: string) {
      const [row] = await db
        .select({
          expiresAt: creatorCredentials.expiresAt,
          scopes: creatorCredentials.scopes,
          refreshFailedAt: creatorCredentials.refreshFailedAt,
          refreshError: creatorCredentials.refreshError,
          updatedAt: creatorCredentials.updatedAt,
        })
        .from(creatorCredentials)
        .where(eq(creatorCredentials.creatorUserId, creatorUserId));
      return row ?? null;
    },

    async creators(): Promise<string[]> {
      const rows = await db.select({ id: creatorCredentials.creatorUserId }).from(creatorCredentials);
      return rows.map((r) => r.id);
    },
  };
}
