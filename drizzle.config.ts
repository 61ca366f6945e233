import { defineConfig } from 'drizzle-kit';

/**
 * `npm run db:generate` writes a new SQL migration into drizzle/ after a change to the schema,
 * src/edges/outbound/store/schema/ (one module per area, all re-exported by its index.ts, which drizzle-kit reads).
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/edges/outbound/store/schema/index.ts',
  out: './drizzle',
});
