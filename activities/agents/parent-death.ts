import { accessSync, constants } from 'node:fs';

/** util-linux's setpriv: Debian marks util-linux Essential, so every machine the stack runs on has it. */
export const SETPRIV = '/usr/bin/setpriv';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const setprivAvailable = executable(SETPRIV);

export interface AgentLaunch {
  command: string;
  args: string[];
  /** Whether setpriv starts the agent (its own start failures then come back as exit codes). */
  throughSetpriv: boolean;
}

/**
 * How to start the agent so the kernel kills it when the worker process dies first (SIGKILL, out of
 * memory), when nothing in the worker is left to do it: setpriv sets the parent-death signal
 * (PR_SET_PDEATHSIG) and execs the agent without a shell, so the agent keeps setpriv's pid and stays
 * the leader of its process group. Without setpriv the agent starts directly (and outlives a killed
 * worker, as docs/agent-process.md says).
 */
export function agentLaunch(command: string, args: string[], useSetpriv = setprivAvailable): AgentLaunch {
  if (!useSetpriv) return { command, args, throughSetpriv: false };
  return { command: SETPRIV, args: ['--pdeathsig', 'KILL', '--', command, ...args], throughSetpriv: true };
}

/**
 * Why setpriv could not start `command` (it exits 127 when the file is missing, 126 when it cannot be
 * executed, and says why on stderr), or null when the agent itself ran.
 */
export function setprivStartFailure(command: string, exitCode: number | null, stderr: string): string | null {
  if (exitCode !== 126 && exitCode !== 127) return null;
  const prefix = `setpriv: failed to execute ${command}: `;
  const line = stderr.split('\n').find((text) => text.startsWith(prefix));
  return line === undefined ? null : line.slice(prefix.length);
}
