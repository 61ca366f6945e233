import { eq } from 'drizzle-orm';
import type { Db } from '../database';
import { appState } from '../schema';

export type AppStateRepository = ReturnType<typeof createAppStateRepository>;

/** Small named values that survive restarts. */
export function createAppStateRepository(db: Db) {
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
