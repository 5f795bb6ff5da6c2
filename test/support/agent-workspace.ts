import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_GROUP } from '../../lib/agent-isolation';

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
