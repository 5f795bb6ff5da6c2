import { Context } from '@temporalio/activity';
import type { Execution } from '../../db/executions-store';
import { stepRecordsOfRun } from '../../db/pipelines-store';
import type { PushOutcome } from '../../temporal/contracts/pipeline-activities';
import { refuseOtherHost } from '../agents/agent-hosts';
import { pushRunChanges } from '../repos/run-push';
import { runOf, tell, type PipelineActivityDeps } from './run-context';

/**
 * After the last step of a run in a repository, before completeRun: one commit and push of the
 * working copy (docs/repositories.md), as a user of the pool. A regular activity, not a local one:
 * it may wait for a user and for git; heartbeats, and a cancel ends the wait. Null when pushed
 * (or nothing to push); else why not (the workflow then fails the run after its last step, so a
 * resume pushes again). Repeatable: a commit already made is pushed, one already pushed is not.
 */
export async function pushRun(deps: PipelineActivityDeps, runId: string): Promise<PushOutcome> {
  const { db, config } = deps;
  const record = await runOf(deps, runId);
  // The working copy is on the run's host (docs/multi-host.md).
  refuseOtherHost(record.host, config.orchestration.host, `pipeline run ${runId}`);
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), 5_000);
  try {
    const error = await pushRunChanges(
      {
        db,
        config: config.orchestration.repositories,
        announce: (content) => announceGit(deps, record, content),
        signal: context.cancellationSignal,
      },
      record,
    );
    return { error };
  } finally {
    clearInterval(beat);
  }
}

/** The git line after the last step: `pipeline_step_output` without an executionId (contract 4.3). */
async function announceGit(deps: PipelineActivityDeps, record: Execution, content: string): Promise<void> {
  const steps = await stepRecordsOfRun(deps.db, record.id);
  const stepIndex = steps[steps.length - 1]?.stepIndex ?? 0;
  await tell(deps, record, {
    type: 'pipeline_step_output',
    pipelineId: record.pipelineId ?? '',
    pipelineExecutionId: record.id,
    stepIndex,
    data: { type: 'success', content },
  });
}
