import { mysqlTable, timestamp, varchar } from 'drizzle-orm/mysql-core';
import { jsonText } from './columns';

/** Service-wide settings, one row per named setting (the orchestration settings build on it). */
export const settings = mysqlTable('settings', {
  name: varchar('name', { length: 64 }).primaryKey(),
  value: jsonText<unknown>('value').notNull(),
  updatedAt: timestamp('updated_at', { mode: 'date' }).notNull().defaultNow().onUpdateNow(),
});
