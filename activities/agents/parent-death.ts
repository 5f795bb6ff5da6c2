import { executable, SETPRIV } from '../../lib/agent-isolation';

export { SETPRIV };

const setprivAvailable = executable(SETPRIV);

/** The unprivileged user and group a process is started as (lib/agent-isolation.ts). */
export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * The umask of everything started as an agent user: projects are shared by the pool's users
 * through their group, so what one run creates the next (another user) can change; others get
 * nothing. setpriv has no umask option, so a fixed /bin/sh script sets it and execs the command:
 * the command and its arguments are positional parameters, never read by the shell as code.
 */
export const AGENT_UMASK = '0007';
const UMASK_TRAMPOLINE = ['/bin/sh', '-c', `umask ${AGENT_UMASK} && exec "$@"`, 'agent'];

export interface AgentLaunch {
  command: string;
  args: string[];
  /** Whether setpriv starts the agent (its own start failures then come back as exit codes). */
  throughSetpriv: boolean;
}

/**
 * setpriv's options that make the process `runAs`: real, effective and saved ids, only the pool's
 * group, and no_new_privs (a setuid or file-capability program it runs, e.g. sudo, gains nothing).
 */
function switchUser(runAs: RunAs): string[] {
  return [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, `--groups=${runAs.gid}`, '--no-new-privs'];
}

/**
 * How to start the agent so the kernel kills it when the worker process dies first (SIGKILL, out of
 * memory), when nothing in the worker is left to do it: setpriv sets the parent-death signal
 * (PR_SET_PDEATHSIG; after the user switch, which would clear it) and execs the agent without a
 * shell, so the agent keeps setpriv's pid and stays the leader of its process group. With `runAs`
 * setpriv also switches to that user, and the umask trampoline execs the agent (same pid).
 * Without setpriv the agent starts directly (and outlives a killed worker, as
 * docs/agent-process.md says); `runAs` then cannot be honoured and is refused.
 */
export function agentLaunch(command: string, args: string[], useSetpriv = setprivAvailable, runAs?: RunAs): AgentLaunch {
  if (!useSetpriv) {
    if (runAs !== undefined) throw new Error(`${SETPRIV} is missing: cannot start the agent as uid ${runAs.uid}`);
    return { command, args, throughSetpriv: false };
  }
  const options =
    runAs === undefined ? ['--pdeathsig', 'KILL', '--'] : [...switchUser(runAs), '--pdeathsig', 'KILL', '--', ...UMASK_TRAMPOLINE];
  return { command: SETPRIV, args: [...options, command, ...args], throughSetpriv: true };
}

/** A short-lived command run as `runAs` with the agents' umask (creating a run's directory, ending a user's processes). */
export function asUser(runAs: RunAs, command: string, args: string[]): { command: string; args: string[] } {
  return { command: SETPRIV, args: [...switchUser(runAs), '--', ...UMASK_TRAMPOLINE, command, ...args] };
}

/**
 * Why `command` could not be started, or null when it ran: setpriv exits 127 when the file is
 * missing, 126 when it cannot be executed, and says why on stderr; the umask trampoline's shell
 * does the same in its own words ("agent: 1: exec: <command>: not found").
 */
export function setprivStartFailure(command: string, exitCode: number | null, stderr: string): string | null {
  if (exitCode !== 126 && exitCode !== 127) return null;
  const lines = stderr.split('\n');
  const setprivPrefix = `setpriv: failed to execute ${command}: `;
  const fromSetpriv = lines.find((text) => text.startsWith(setprivPrefix));
  if (fromSetpriv !== undefined) return fromSetpriv.slice(setprivPrefix.length);
  const shellPrefix = `agent: 1: exec: ${command}: `;
  const fromShell = lines.find((text) => text.startsWith(shellPrefix));
  if (fromShell === undefined) return null;
  const reason = fromShell.slice(shellPrefix.length);
  return reason === 'not found' ? 'No such file or directory' : reason;
}
