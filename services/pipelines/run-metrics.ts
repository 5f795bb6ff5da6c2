import type { Execution } from '../../db/executions-store';
import type { Pipeline } from '../../db/pipelines-store';
import { stepOverheadsSeconds } from '../../domain/pipeline-overhead';
import { pipelineStepOverhead } from '../../lib/metrics';

/**
 * A completed run's overhead around each of its own steps (domain/pipeline-overhead.ts). The gap
 * before a step that requires approval holds the person's wait and is left out; so would a budget
 * pause's, but the records do not say a run paused for a budget, so that rare gap counts
 * (docs/observability.md).
 */
export function countStepOverheads(
  run: Pick<Execution, 'createdAt' | 'finishedAt'>,
  ownSteps: Execution[],
  pipeline: Pipeline | null,
): void {
  if (run.finishedAt === null) return;
  const needsApproval = (stepIndex: number) => pipeline?.steps[stepIndex]?.requiresApproval === true;
  const steps = ownSteps.map((step) => ({ stepIndex: step.stepIndex ?? 0, startedAt: step.startedAt, finishedAt: step.finishedAt }));
  for (const seconds of stepOverheadsSeconds({ createdAt: run.createdAt, finishedAt: run.finishedAt }, steps, needsApproval)) {
    pipelineStepOverhead.observe(seconds);
  }
}
