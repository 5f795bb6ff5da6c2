import { eq } from 'drizzle-orm';
import type { Database } from './index';
import { executions } from './schema';

/** The commit a repository run made (pushed or not: docs/repositories.md), stored as soon as it exists. */
export async function setExecutionRepoCommit(db: Database, executionId: string, commit: string): Promise<void> {
  await db.update(executions).set({ repoCommit: commit }).where(eq(executions.id, executionId));
}
