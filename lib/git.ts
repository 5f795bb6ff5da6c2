import { spawn } from 'node:child_process';
import { pipeline } from 'node:stream/promises';

/**
 * The real `git` binary, run so that no repository it works in can make it run anything
 * (docs/repositories.md, "Git and trust"): no system or global configuration, no terminal prompt,
 * and on the command line (which wins over any repository's configuration) hooks, fsmonitor, ssh
 * and credential helpers, pagers, editors and external diff programs switched off. In a working copy
 * an agent wrote, the caller also runs git as the agent's own user (`asUser`), never as root.
 */

export const GIT = '/usr/bin/git';

/** Settings given with -c on every call: each neutralises a repository setting that runs a program. */
const HARDENING: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.sshCommand=false',
  'core.pager=cat',
  'core.editor=false',
  'core.askPass=',
  'core.gitProxy=',
  'credential.helper=',
  'diff.external=',
  'gpg.program=false',
  'protocol.ext.allow=never',
  'protocol.allow=user',
  'protocol.file.allow=always',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'uploadpack.packObjectsHook=',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  // A redirect to another host must not receive the credentials meant for the remote.
  'http.followRedirects=false',
].flatMap((setting) => ['-c', setting]);

/** The whole environment of a git process: nothing of the service's own leaks in. */
function gitEnvironment(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    LC_ALL: 'C',
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_AUTHOR_NAME: 'Agents Orchestrator',
    GIT_AUTHOR_EMAIL: 'agents@localhost',
    GIT_COMMITTER_NAME: 'Agents Orchestrator',
    GIT_COMMITTER_EMAIL: 'agents@localhost',
    ...extra,
  };
}

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitCall {
  /** The directory git starts in. */
  cwd?: string;
  /** Wraps the command line, e.g. to run it as the working copy's user (activities/agents/parent-death.ts asUser). */
  asUser?: (command: string, args: string[]) => { command: string; args: string[] };
  /** Variables added to the hardened environment (e.g. GIT_ASKPASS and the push credentials). */
  env?: Record<string, string>;
  /** Extra -c settings (e.g. safe.directory for the service's own mirror). */
  settings?: string[];
  /** Where stdout goes: kept as text (default, bounded), or piped into this stream (ended with it, destroyed on failure). */
  stdoutTo?: NodeJS.WritableStream;
  /** Ends the call (SIGKILL) after this long. */
  timeoutMs?: number;
}

const KEPT_OUTPUT = 1_000_000;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** Runs `git <args>`; resolves with stdout (trimmed at the end), rejects with GitError carrying git's own message. */
export function git(args: string[], call: GitCall = {}): Promise<string> {
  const fullArgs = [...HARDENING, ...(call.settings ?? []).flatMap((setting) => ['-c', setting]), ...args];
  const { command, args: argv } = call.asUser ? call.asUser(GIT, fullArgs) : { command: GIT, args: fullArgs };
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: call.cwd, env: gitEnvironment(call.env ?? {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Backpressure and errors handled by pipeline; a failed write is the call's failure.
    const piped = call.stdoutTo
      ? pipeline(child.stdout, call.stdoutTo).then(
          () => null,
          (error: Error) => error,
        )
      : null;
    if (!piped) {
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.length < KEPT_OUTPUT) stdout += chunk.toString('utf8');
      });
    }
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < KEPT_OUTPUT) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), call.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new GitError(`git could not be started: ${error.message}`, null, ''));
    });
    child.once('close', async (code, signal) => {
      clearTimeout(timer);
      const writeError = piped ? await piped : null;
      if (code === 0 && writeError)
        return reject(new GitError(`git ${args[0] ?? ''}: its output could not be written: ${writeError.message}`, code, stderr));
      if (code === 0) return resolve(stdout.replace(/\s+$/, ''));
      const said = stderr.trim().split('\n').filter(Boolean).slice(-5).join(' | ');
      const how = signal ? `was stopped (${signal})` : `exited with code ${code}`;
      reject(new GitError(`git ${args[0] ?? ''} ${how}${said ? `: ${said}` : ''}`, code, stderr));
    });
  });
}
