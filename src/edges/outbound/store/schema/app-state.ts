import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Small named values that survive restarts.

/** Small named values that must survive restarts (e.g. the hash of the registered slash commands). */
export const appState = pgTable('app_state', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
