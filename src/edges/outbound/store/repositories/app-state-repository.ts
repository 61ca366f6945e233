import { eq } from 'drizzle-orm';
import type { Db } from '../database';
import { appState } from '../schema';

/** Small named values that survive restarts. */
export interface AppStateRepository {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
}

export function createAppStateRepository(db: Db): AppStateRepository {
  return {
    async get<T>(key: string): Promise<T | null> {
      const [row] = await db.select({ value: appState.value }).from(appState).where(eq(appState.key, key));
      return (row?.value as T | undefined) ?? null;
    },
    async set(key: string, value: unknown): Promise<void> {
      await db
        .insert(appState)
        .values({ key, value, updatedAt: new Date() })
        .onConflictDoUpdate({ target: appState.key, set: { value, updatedAt: new Date() } });
    },
  };
}
