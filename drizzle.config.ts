import { defineConfig } from 'drizzle-kit';

// Generation only needs the schema; migrations are applied by db/migrate.ts at start.
export default defineConfig({
  dialect: 'mysql',
  schema: './db/schema.ts',
  out: './db/migrations',
});
