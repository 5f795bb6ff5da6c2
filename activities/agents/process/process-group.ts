import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * The agent's process and the process group it leads (spawned detached: every tool it starts is in
 * its group, so one signal reaches them all; docs/agent-process.md, "Cancellation").
 */

/** How the process ended: its exit status, or the error that kept it from starting. */
export type ProcessEnding = { code: number | null; signal: NodeJS.Signals | null } | { startError: Error };

export interface AgentProcess {
  child: ChildProcessWithoutNullStreams;
  /** Set once the process is spawned; undefined when it could not start. */
  pid: number | undefined;
  /** Settles once the process exited and its output pipes are closed (or it could not start). */
  ended: Promise<ProcessEnding>;
}

/** Starts the command with no shell, leading its own process group. */
export function spawnAgentProcess(command: string, args: string[], cwd: string, env: Record<string, string>): AgentProcess {
  const child = spawn(command, args, { cwd, env, shell: false, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const ended = new Promise<ProcessEnding>((resolve) => {
    // After a successful start, 'error' only reports a failed kill; the exit status still tells the story.
    child.on('error', (error) => {
      if (child.pid === undefined) resolve({ startError: error });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, pid: child.pid, ended };
}

/** Signals the whole process group led by pid; a group already gone is not an error (EPERM cannot happen: it is our child's group). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Waits until the process group is gone, at most `boundMs`. */
export async function groupGone(pid: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
