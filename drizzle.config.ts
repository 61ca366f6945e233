import { defineConfig } from 'drizzle-kit';

/** `npm run db:generate` writes a new SQL migration into drizzle/ after a change to src/edges/store/schema.ts. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/edges/store/schema.ts',
  out: './drizzle',
});
