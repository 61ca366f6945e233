import { timestamp } from 'drizzle-orm/pg-core';

/** A `timestamptz` column read and written as a `Date`: every time in the schema is one. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
