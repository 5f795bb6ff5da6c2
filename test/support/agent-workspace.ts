import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_GROUP } from '../../lib/agent-isolation';
import { until } from './waiting';

/**
 * A scratch directory the pool's agent users can work in, as the worker prepares a root of
 * working directories (activities/agents/agent-host.ts): mode 2770 and the pool's group when the
 * tests run as root. Usable as a root (`workdirRoots`) of its own.
 */
export function agentWorkspace(prefix: string, parent: string = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  if (process.getuid?.() === 0) {
    fs.chownSync(dir, 0, agentGroupId());
    fs.chmodSync(dir, 0o2770);
  }
  return dir;
}

/** The pool's group; the stack creates it (scripts/stack/agent-users.sh): missing, the tests fail here. */
export function agentGroupId(): number {
  const line = execFileSync('getent', ['group', AGENT_GROUP], { encoding: 'utf8' });
  return Number(line.split(':')[2]);
}

/**
 * The pid a `stand-in:sleep` tool call wrote in `dir` (its shell's: `echo $$ > sleeper.pid && sleep N`),
 * once written.
 */
export async function sleeperPidIn(dir: string, timeoutMs = 60_000): Promise<number> {
  const file = path.join(dir, 'sleeper.pid');
  const text = await until(
    'the tool wrote its pid',
    async () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : ''),
    (found) => found !== '',
    timeoutMs,
  );
  return Number(text);
}
