import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { repoRoot } from '../lib/paths';

/** Where recorded workflow histories live; test/integration/workflow-replay.test.ts replays every one. */
export const HISTORY_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'histories');

/** Writes a workflow's history as `<name>.json` among the replay fixtures. */
export async function saveHistoryFixture(name: string, handle: WorkflowHandle): Promise<void> {
  const history = await handle.fetchHistory();
  await fs.mkdir(HISTORY_FIXTURES, { recursive: true });
  // The message's own proto3 JSON (historyToJSON trips over the SDK's second protobufjs copy).
  await fs.writeFile(path.join(HISTORY_FIXTURES, `${name}.json`), `${JSON.stringify(history, null, 1)}\n`);
  process.stdout.write(`recorded ${name} (${history.events?.length ?? 0} events)\n`);
}
