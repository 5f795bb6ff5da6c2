import fs from 'node:fs/promises';
import type { Database } from '../../db';
import type { Execution } from '../../db/executions-store';
import { setExecutionRepoCommit } from '../../db/repository-runs';
import { agentIsolation } from '../../lib/agent-isolation';
import { findRepository, type RepositoryConfig } from '../../services/repos';
import { leaseAgentUser, type AgentUserLease } from '../agents/agent-users';
import { commitAndPush, commitMessage, mirrorPath, pushAnnouncement } from './working-copy';

export interface RunPushDeps {
  db: Database;
  config: RepositoryConfig;
  announce: (content: string) => Promise<void>;
  /** Ends the wait for a user of the pool (the activity's cancellation). */
  signal?: AbortSignal;
}

/**
 * A pipeline run in a repository commits and pushes once, after its last step (docs/repositories.md,
 * docs/pipelines.md): as a user of the pool (the working copy's owner first, as runs lease), the same
 * commit and push as an agent run's. Null when pushed (or nothing changed); else why not (the commit,
 * if made, stays in the working copy and is stored in the record).
 */
export async function pushRunChanges(deps: RunPushDeps, run: Execution): Promise<string | null> {
  if (!run.repoName || !run.repoBranch) return null;
  const isolation = agentIsolation();
  if (isolation.mode === 'refused') return `git cannot run here: ${isolation.reason}`;
  let lease: AgentUserLease | null = null;
  try {
    const repo = await findRepository(deps.config, run.repoName);
    const dir = await fs.realpath(run.workingDirectory);
    if (isolation.mode === 'user-pool') {
      const owner = (await fs.stat(dir)).uid;
      lease = await leaseAgentUser(isolation.users, { preferUid: owner, ...(deps.signal ? { signal: deps.signal } : {}) });
    }
    const prepared = { mirror: mirrorPath(deps.config, repo), branch: run.repoBranch };
    const message = commitMessage(`Pipeline ${run.agentName}`, run.task, run.id);
    const published = await commitAndPush(deps.config, repo, prepared, dir, lease?.user ?? null, message);
    if (published.commit === null) return null;
    await setExecutionRepoCommit(deps.db, run.id, published.commit);
    if (published.pushError !== null) return `${published.pushError} (the commit ${published.commit.slice(0, 7)} stays in the working copy ${dir})`;
    await deps.announce(pushAnnouncement(repo, published.commit, published.files));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await lease?.release();
  }
}
