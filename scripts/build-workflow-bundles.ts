import fs from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TASK_QUEUES } from '../temporal/task-queues';
import { workflowBundlePath } from '../workers/queue-worker';

/** Prebuilds one workflow bundle per task queue so workers start without bundling (run by `npm run build`). */
async function build(): Promise<void> {
  for (const taskQueue of Object.values(TASK_QUEUES)) {
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve(`../workflows/${taskQueue}`) });
    const target = workflowBundlePath(taskQueue);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, code);
    process.stdout.write(`workflow bundle ${taskQueue}: ${target} (${Math.round(code.length / 1024)} KiB)\n`);
  }
}

build().catch((error: unknown) => {
  process.stderr.write(`workflow bundle failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
