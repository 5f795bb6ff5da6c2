import fs from 'node:fs/promises';
import type { Execution } from '../../db/executions-store';
import { gitCannotRunError } from '../../domain/run-messages';
import { agentIsolation } from '../../lib/agent-isolation';
import { findRepository } from '../../services/repos';
import { leaseAgentUser, type AgentUserLease } from '../agents/agent-users';
import { commitMessage, commitPushAndRecord, mirrorPath, type RecordedPushDeps } from './working-copy';

export interface RunPushDeps extends RecordedPushDeps {
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
  if (isolation.mode === 'refused') return gitCannotRunError(isolation.reason);
  let lease: AgentUserLease | null = null;
  try {
    const repo = await findRepository(deps.config, run.repoName);
    const dir = await fs.realpath(run.workingDirectory);
    if (isolation.mode === 'user-pool') {
      const owner = (await fs.stat(dir)).uid;
      lease = await leaseAgentUser(isolation.users, { preferUid: owner, ...(deps.signal ? { signal: deps.signal } : {}) });
    }
    const prepared = { mirror: mirrorPath(deps.config, repo), branch: run.repoBranch };
    return await commitPushAndRecord(
      deps,
      repo,
      prepared,
      dir,
      lease?.user ?? null,
      commitMessage(`Pipeline ${run.agentName}`, run.task, run.id),
      run.id,
    );
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await lease?.release();
  }
}
