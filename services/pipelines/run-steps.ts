import type { Database } from '../../db';
import { getExecution, type Execution } from '../../db/executions-store';
import { stepRecordsOfRun } from '../../db/pipelines-store';

/** How far back the steps of resumed runs are followed. */
const RESUME_CHAIN_MAX = 50;

/**
 * The steps of a run, by step: its own agent records and, for a resumed run, the completed steps of
 * the runs it resumes that came before the step it resumed at (their records are kept, not copied).
 */
export async function runStepRecords(
  db: Database,
  run: Pick<Execution, 'id' | 'resumedFrom' | 'resumedAtStep'>,
  depth = 0,
): Promise<Execution[]> {
  const own = await stepRecordsOfRun(db, run.id);
  if (!run.resumedFrom || depth >= RESUME_CHAIN_MAX) return own;
  const earlierRun = await getExecution(db, run.resumedFrom);
  if (!earlierRun) return own;
  const before = (await runStepRecords(db, earlierRun, depth + 1)).filter(
    (step) => (step.stepIndex ?? 0) < (run.resumedAtStep ?? 0) && step.status === 'completed',
  );
  return [...before, ...own];
}
