/**
 * What a completed pipeline run added around each of its steps (`pipeline_step_overhead_seconds`,
 * docs/observability.md), as `npm run bench:pipeline` defines it: the run's wall time less its steps'
 * own time (slot taken to record finished), here split per step. Step i's share is the gap from the
 * previous step's end (the run's creation for its first step) to its slot; the last step's also holds
 * the gap from its end to the run's end. A step that waited for a person's approval has that gap left
 * out: it measures the person, not the pipeline.
 */
export interface TimedStep {
  stepIndex: number;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export function stepOverheadsSeconds(
  run: { createdAt: Date; finishedAt: Date },
  steps: readonly TimedStep[],
  waitedForApproval: (stepIndex: number) => boolean,
): number[] {
  const overheads: number[] = [];
  let previousEnd: Date | null = run.createdAt;
  steps.forEach((step, index) => {
    const anchor = previousEnd;
    previousEnd = step.finishedAt;
    if (step.startedAt === null || step.finishedAt === null) return;
    const before = anchor === null || waitedForApproval(step.stepIndex) ? null : step.startedAt.getTime() - anchor.getTime();
    const isLast = index === steps.length - 1;
    if (before === null && !isLast) return;
    const after = isLast ? run.finishedAt.getTime() - step.finishedAt.getTime() : 0;
    overheads.push(Math.max(0, (before ?? 0) + after) / 1000);
  });
  return overheads;
}
