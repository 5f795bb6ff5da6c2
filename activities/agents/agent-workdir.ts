import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { AGENT_GROUP, type AgentUser } from '../../lib/agent-isolation';
import { confineWorkingDirectory, WorkingDirectoryError } from '../../lib/working-directories';
import { asUser } from './parent-death';

/**
 * A run's working directory, where the run happens (issue 13, item 3; docs/agent-process.md,
 * "Working directory"): checked under the allowed roots, created by the agent's own user (so root
 * never creates anything through a path an agent could have planted a symlink in), then resolved
 * again and checked under the roots before the agent starts in the real path.
 */

export { WorkingDirectoryError };

const MKDIR = '/usr/bin/mkdir';

/** mkdir -p as the user, with the agents' umask; the reason on failure is mkdir's own message. */
function mkdirAs(user: AgentUser, dir: string): Promise<void> {
  const { command, args } = asUser(user, MKDIR, ['-p', '--', dir]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) return resolve();
      const reason = stderr.trim().replace(/^(\/usr\/bin\/)?mkdir: /, '') || `mkdir exited with code ${code}`;
      reject(
        new WorkingDirectoryError(
          `the working directory "${dir}" could not be created by the agent's user ${user.name}: ${reason}`,
          `o diretório de trabalho "${dir}" não pôde ser criado pelo usuário do agente ${user.name}: ${reason}`,
        ),
      );
    });
  });
}

/** Whether mode bits let `user` write in and enter a directory (ACLs are not used here). */
function writableBy(stat: { uid: number; gid: number; mode: number }, user: AgentUser): boolean {
  const bits = stat.uid === user.uid ? (stat.mode >> 6) & 7 : stat.gid === user.gid ? (stat.mode >> 3) & 7 : stat.mode & 7;
  return (bits & 3) === 3;
}

/**
 * The real path the agent is started in. `runAs` null: the service's own user creates it (the
 * service is not root). Throws WorkingDirectoryError with a message for the execution's record.
 */
export async function prepareWorkingDirectory(requested: string, roots: readonly string[], runAs: AgentUser | null): Promise<string> {
  // Refuse early what can be seen at once (outside the roots, a symlink leading out): nothing is created.
  const confined = await confineWorkingDirectory(requested, roots);
  if (runAs === null) await fs.mkdir(confined, { recursive: true });
  else await mkdirAs(runAs, confined);

  // Again, now that it exists: a symlink swapped in meanwhile is resolved and refused here.
  await confineWorkingDirectory(confined, roots);
  const real = await fs.realpath(confined);
  const stat = await fs.stat(real);
  if (runAs !== null && !writableBy(stat, runAs)) {
    throw new WorkingDirectoryError(
      `the working directory "${confined}" is not writable by the agent's user ${runAs.name} (group of the pool): ` +
        `give it to the group (chgrp ${AGENT_GROUP}; chmod g+rwx)`,
      `o diretório de trabalho "${confined}" não permite escrita ao usuário do agente ${runAs.name} (grupo do pool): ` +
        `dê-o ao grupo (chgrp ${AGENT_GROUP}; chmod g+rwx)`,
    );
  }
  return real;
}
