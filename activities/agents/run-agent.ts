import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import readline from 'node:readline';
import { agentIsolation, type AgentIsolation, type AgentUser } from '../../lib/agent-isolation';
import type { OutputChunk } from '../../lib/live-output';
import { AgentOptionsError, type AgentCli, type AgentEvent, type AgentRunOptions, type AgentTokens } from './agent-cli';
import { ENV_NAME } from '../../domain/env-names';
import { TIMEOUT_KILL_GRACE_MS, timedOutError } from '../../domain/run-limits';
import { agentBaseEnv, agentUserEnv } from './agent-env';
import { leaseAgentUser, type AgentUserLease } from './agent-users';
import { prepareWorkingDirectory, WorkingDirectoryError } from './agent-workdir';
import { agentLaunch, setprivStartFailure } from './parent-death';

/**
 * Runs one coding-agent process to its end: the process layer under the execution activity.
 * As an unprivileged user leased for the run when the service is root (agent-users.ts), in a
 * working directory that user creates under the allowed roots (agent-workdir.ts). No shell, its
 * own process group (so cancellation reaches every tool it started), killed by the
 * kernel if the worker dies first (parent-death.ts), secrets only in its environment, the prompt on
 * standard input, standard output parsed line by line by the CLI's adapter. Contract and
 * cancellation semantics: docs/agent-process.md.
 */

export const DEFAULT_KILL_GRACE_MS = 1_000;
/** Characters of assistant text (and of the final result) kept: well under Temporal's 256 KB payload warning even in 3-byte UTF-8. */
export const DEFAULT_MAX_OUTPUT_CHARS = 60_000;
/** Characters of standard error kept (its end: where the reason of a failure is). */
export const DEFAULT_MAX_STDERR_CHARS = 8_000;
/** The line a run ends with when its session could not be kept (a full disk): the run stands, its `continue` will not resume. */
export const SESSION_NOT_KEPT_LINE = 'a sessão desta execução não foi guardada, então ela não poderá ser continuada';

export interface RunAgentOptions {
  /** The executable (AGENT_COMMAND), found on PATH or given as a path. */
  command: string;
  cli: AgentCli;
  run: AgentRunOptions;
  /** Must lie under `workdirRoots` (also after resolving symlinks); created by the agent's user when missing. */
  cwd: string;
  /** The allowed roots of working directories (AGENT_WORKDIR_ROOTS). */
  workdirRoots: readonly string[];
  /** Who the agent runs as; this process's (lib/agent-isolation.ts) when absent. */
  isolation?: AgentIsolation;
  /**
   * Root-only directory where the CLI's sessions are kept between runs of pool users (a pool user's
   * HOME is emptied at every lease; agent-sessions.ts), in the namespace of the agent `agentId`: the
   * session the run reports is kept there, and a `continue` resumes only from there. Absent:
   * sessions do not outlive the run.
   */
  sessions?: { store: string; agentId: string };
  /** The environment before secrets; agentBaseEnv(process.env) when absent. */
  baseEnv?: Record<string, string>;
  /** Added to the environment (overriding baseEnv); never put in the argument list. */
  secrets?: Record<string, string>;
  /** The run's own variables (its record and attempt, docs/agent-process.md), added last: no secret passes for them. */
  runEnv?: Record<string, string>;
  /** Aborting kills the process group: SIGTERM, then SIGKILL after killGraceMs. */
  signal?: AbortSignal;
  /**
   * The run's time limit, counted from the agent's process start (docs/agents.md, "Time limit"): at
   * the limit the process group gets SIGTERM, then SIGKILL TIMEOUT_KILL_GRACE_MS later, and the run
   * fails with AgentTimeoutError once the group is gone.
   */
  timeLimitMs?: number;
  /**
   * Awaited just before the agent's process starts, after every preparation; a throw starts nothing and
   * fails the run with that error (the execution activity claims the start here, once per attempt).
   */
  beforeSpawn?: () => Promise<void>;
  /** Called once the agent's process is spawned: from then on the run has begun (its heartbeat says so). */
  onSpawn?: () => void;
  /** Each parsed line, in order; awaited one after another. A throw ends the run with that error. */
  onEvent?: (event: AgentEvent) => void | Promise<void>;
  /**
   * The run's terminal lines (the CLI's outputMapper over standard output and error), in order, in
   * the same queue as onEvent: a line's events come before its chunks. A throw ends the run.
   */
  onOutput?: (chunk: OutputChunk) => void | Promise<void>;
  /**
   * Work around the agent in its working directory, as the agent's user (`null`: the service's own
   * user): a repository's working copy (docs/repositories.md). `prepare` runs once the directory is
   * ready, before the agent starts; `complete` after the agent completed and its process group is
   * gone, before its user is released. A throw fails the run with its message.
   */
  workspace?: {
    prepare(cwd: string, user: AgentUser | null): Promise<void>;
    complete(cwd: string, user: AgentUser | null, summary: AgentRunSummary): Promise<void>;
  };
  killGraceMs?: number;
  maxOutputChars?: number;
  maxStderrChars?: number;
}

export interface AgentRunSummary {
  pid: number | null;
  exitCode: number | null;
  /** The signal that ended the process, when one did. */
  signal: NodeJS.Signals | null;
  sessionId: string | null;
  costUsd: number | null;
  durationMs: number | null;
  turns: number | null;
  /** Tokens as the result event reported them (null: it reported none). */
  tokens: AgentTokens | null;
  /** The result event's text (the final answer, or its error message), bounded like output. */
  resultText: string | null;
  /** The assistant text messages joined by newlines, bounded, with a note at the end when cut. */
  output: string;
  outputTruncated: boolean;
  /** The end of standard error (DEFAULT_MAX_STDERR_CHARS), '' when it wrote nothing. */
  stderr: string;
  /** Why the run failed; null when it did not. */
  error: string | null;
}

/** The agent failed: it could not start, exited non-zero, died by a signal, or reported an error result. */
export class AgentProcessError extends Error {
  override name = 'AgentProcessError';
  constructor(
    message: string,
    readonly summary: AgentRunSummary,
  ) {
    super(message);
  }
}

/** The run reached its time limit and its process group was killed. */
export class AgentTimeoutError extends AgentProcessError {
  override name = 'AgentTimeoutError';
}

/** The run was cancelled through its AbortSignal and the process group was killed; `cause` is the signal's reason. */
export class AgentCancelledError extends Error {
  override name = 'AgentCancelledError';
  constructor(
    readonly summary: AgentRunSummary,
    reason: unknown,
  ) {
    super('agent run cancelled', { cause: reason });
  }
}

export async function runAgent(options: RunAgentOptions): Promise<AgentRunSummary> {
  const args = options.cli.buildArgs(options.run);
  const secrets = checkedSecrets(options.secrets ?? {});
  const isolation = options.isolation ?? agentIsolation();
  const summary: AgentRunSummary = {
    pid: null,
    exitCode: null,
    signal: null,
    sessionId: null,
    costUsd: null,
    durationMs: null,
    turns: null,
    tokens: null,
    resultText: null,
    output: '',
    outputTruncated: false,
    stderr: '',
    error: null,
  };

  if (isolation.mode === 'refused') {
    summary.error = `os agentes não podem rodar aqui: ${isolation.reason}`;
    throw new AgentProcessError(summary.error, summary);
  }
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);

  let lease: AgentUserLease | null = null;
  if (isolation.mode === 'user-pool') {
    try {
      // The user's HOME is emptied; a `continue` gets its session back from the store (agent-sessions.ts).
      const resume = options.run.resumeSessionId;
      // Only a hint (the directory is checked later, as the leased user): its owner is asked for first.
      const owner = await stat(options.cwd).then(
        (found) => found.uid,
        () => undefined,
      );
      lease = await leaseAgentUser(isolation.users, {
        ...(owner !== undefined ? { preferUid: owner } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.sessions ? { sessions: { ...options.sessions, ...(resume !== undefined ? { resume } : {}) } } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
      throw error;
    }
  }
  const release = async (): Promise<void> => {
    if (lease === null) return;
    // Tools given SIGTERM get their grace period before the release ends every process of the user.
    if (summary.pid !== null) await groupGone(summary.pid, (options.killGraceMs ?? DEFAULT_KILL_GRACE_MS) + 200);
    // Only the session the run reported is kept (of a failed or cancelled run too: it keeps its session).
    const { sessionNotKept } = await lease.release(summary.sessionId);
    // The run's work is done: a session the store refused (a full disk) is said, not made the run's failure.
    if (sessionNotKept !== null) await options.onOutput?.({ type: 'stderr', content: `${SESSION_NOT_KEPT_LINE} (${sessionNotKept})` });
  };
  let result: AgentRunSummary;
  try {
    result = await runAs(options, args, secrets, lease, summary);
  } catch (error) {
    // The run's own failure is what the caller must see; the next lease of the user kills and empties again.
    await release().catch(() => undefined);
    throw error;
  }
  await release();
  return result;
}

/** The run itself, as the leased user (or the service's own user when `lease` is null). */
async function runAs(
  options: RunAgentOptions,
  args: string[],
  secrets: Record<string, string>,
  lease: AgentUserLease | null,
  summary: AgentRunSummary,
): Promise<AgentRunSummary> {
  const user = lease?.user ?? null;
  const baseEnv = options.baseEnv ?? agentBaseEnv(process.env);
  const env = { ...(user === null ? baseEnv : agentUserEnv(baseEnv, user)), ...secrets, ...options.runEnv };
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const output = new HeadText(options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const stderr = new TailText(options.maxStderrChars ?? DEFAULT_MAX_STDERR_CHARS);

  let cwd: string;
  try {
    cwd = await prepareWorkingDirectory(options.cwd, options.workdirRoots, user);
  } catch (error) {
    if (!(error instanceof WorkingDirectoryError)) throw error;
    summary.error = error.ptBrMessage;
    throw new AgentProcessError(summary.error, summary);
  }
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
  if (options.workspace) await inWorkspace(summary, () => options.workspace!.prepare(cwd, user));
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
  await options.beforeSpawn?.();

  const launch = agentLaunch(options.command, args, undefined, user === null ? undefined : { uid: user.uid, gid: user.gid });
  const child = spawn(launch.command, launch.args, { cwd, env, shell: false, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  summary.pid = child.pid ?? null;
  if (summary.pid !== null) options.onSpawn?.();

  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { startError: Error }>((resolve) => {
    // After a successful start, 'error' only reports a failed kill; the exit status still tells the story.
    child.on('error', (error) => {
      if (child.pid === undefined) resolve({ startError: error });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });

  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (grace = graceMs): void => {
    if (child.pid === undefined || killTimer !== undefined) return;
    const pid = child.pid;
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), grace);
    killTimer.unref();
  };

  let exited = false;
  let timedOut = false;
  const limitTimer =
    options.timeLimitMs === undefined
      ? undefined
      : setTimeout(() => {
          if (exited) return;
          timedOut = true;
          terminate(TIMEOUT_KILL_GRACE_MS);
        }, options.timeLimitMs);

  let cancelled = false;
  const onAbort = (): void => {
    cancelled = true;
    terminate();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  // The agent exited: tools it left running in its group (a dev server, a sleep) go with it.
  child.once('exit', () => {
    exited = true;
    if (child.pid !== undefined && groupAlive(child.pid)) terminate();
  });

  // The agent may exit without reading its input; its exit status says what happened.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.run.prompt);

  let delivery: Promise<void> = Promise.resolve();
  const deliveryFailure: { failed: boolean; error: unknown } = { failed: false, error: undefined };
  const enqueue = (work: () => void | Promise<void>): void => {
    delivery = delivery
      .then(async () => {
        if (!deliveryFailure.failed) await work();
      })
      .catch((error: unknown) => {
        if (!deliveryFailure.failed) Object.assign(deliveryFailure, { failed: true, error });
        terminate();
      });
  };
  const deliver = (event: AgentEvent): void => {
    const onEvent = options.onEvent;
    if (onEvent !== undefined) enqueue(() => onEvent(event));
  };
  const onOutput = options.onOutput;
  const mapper = onOutput === undefined ? null : options.cli.outputMapper();
  const deliverChunks = (chunks: OutputChunk[]): void => {
    if (onOutput !== undefined) for (const chunk of chunks) enqueue(() => onOutput(chunk));
  };

  child.stderr.setEncoding('utf8');
  let stderrLine = '';
  child.stderr.on('data', (chunk: string) => {
    stderr.append(chunk);
    if (mapper === null) return;
    // Whole lines only; a line longer than the kept tail is cut there rather than held without end.
    stderrLine += chunk;
    const lineEnd = stderrLine.lastIndexOf('\n');
    if (lineEnd === -1 && stderrLine.length < stderr.limit) return;
    const ready = lineEnd === -1 ? stderrLine : stderrLine.slice(0, lineEnd);
    stderrLine = lineEnd === -1 ? '' : stderrLine.slice(lineEnd + 1);
    for (const line of ready.split('\n')) deliverChunks(mapper.stderr(line));
  });

  let textMessages = 0;
  let resultIsError = false;
  const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    const event = options.cli.parseLine(line);
    if (event.kind === 'init') summary.sessionId = event.sessionId;
    if (event.kind === 'text') {
      output.append(textMessages === 0 ? event.text : `\n${event.text}`);
      textMessages += 1;
    }
    if (event.kind === 'result') {
      summary.sessionId = event.sessionId ?? summary.sessionId;
      summary.costUsd = event.costUsd;
      summary.durationMs = event.durationMs;
      summary.turns = event.turns;
      summary.tokens = event.tokens;
      summary.resultText = event.resultText === null ? null : cut(event.resultText, output.limit);
      resultIsError = event.isError;
    }
    deliver(event);
    if (mapper !== null) deliverChunks(mapper.stdout(line));
  });

  try {
    const ending = await ended;
    lines.close();
    if (mapper !== null) {
      if (stderrLine !== '') deliverChunks(mapper.stderr(stderrLine));
      deliverChunks(mapper.end());
    }
    await delivery;
    if (killTimer !== undefined && child.pid !== undefined && !groupAlive(child.pid)) clearTimeout(killTimer);

    summary.output = output.text();
    summary.outputTruncated = output.truncated;
    summary.stderr = stderr.text();
    if ('startError' in ending) {
      summary.error = `não foi possível iniciar ${options.command}: ${ending.startError.message}`;
      throw new AgentProcessError(summary.error, summary);
    }
    const notStarted = launch.throughSetpriv ? setprivStartFailure(options.command, ending.code, stderr.text()) : null;
    if (notStarted !== null) {
      summary.error = `não foi possível iniciar ${options.command}: ${notStarted}`;
      throw new AgentProcessError(summary.error, summary);
    }
    summary.exitCode = ending.code;
    summary.signal = ending.signal;
    if (cancelled) throw new AgentCancelledError(summary, options.signal?.reason);
    if (timedOut) {
      // The record says so only once nothing of the run is left: the tools had their SIGTERM grace.
      if (child.pid !== undefined) await groupGone(child.pid, TIMEOUT_KILL_GRACE_MS + 200);
      summary.error = timedOutError(options.timeLimitMs!);
      throw new AgentTimeoutError(summary.error, summary);
    }
    // The caller's own failure (e.g. publishing), rethrown as it came.
    if (deliveryFailure.failed) throw deliveryFailure.error;

    if (ending.code !== 0 || ending.signal !== null || resultIsError) {
      summary.error = failureMessage(options.cli, summary, resultIsError, stderr.text());
      throw new AgentProcessError(summary.error, summary);
    }
    if (options.workspace) {
      // Nothing the agent started may still be writing while its work is collected.
      if (child.pid !== undefined) await groupGone(child.pid, graceMs + 200);
      await inWorkspace(summary, () => options.workspace!.complete(cwd, user, summary));
    }
    return summary;
  } finally {
    clearTimeout(limitTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Runs a workspace step; its failure becomes the run's (AgentProcessError with its message). */
async function inWorkspace(summary: AgentRunSummary, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    summary.error = error instanceof Error ? error.message : String(error);
    throw new AgentProcessError(summary.error, summary);
  }
}

function failureMessage(cli: AgentCli, summary: AgentRunSummary, resultIsError: boolean, stderrTail: string): string {
  // In the panel's language: the record's error is shown to a person (the toast, the history).
  const how =
    summary.signal !== null
      ? `foi encerrado pelo sinal ${summary.signal}`
      : summary.exitCode !== 0
        ? `terminou com o código ${summary.exitCode}`
        : 'relatou um erro';
  const parts = [`${cli.name} ${how}`];
  if (resultIsError && summary.resultText !== null) {
    parts.push(`: ${summary.resultText}`);
    const hint = cli.failureHint?.(summary.resultText);
    if (hint) parts.push(` (${hint})`);
  }
  if (stderrTail.trim() !== '') parts.push(`\nstderr: ${stderrTail.trimEnd()}`);
  return parts.join('');
}

function checkedSecrets(secrets: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(secrets)) {
    if (!ENV_NAME.test(name)) throw new AgentOptionsError(`secret name "${name}" is not a valid environment variable name`);
  }
  return secrets;
}

/** Signals the whole process group led by pid; a group already gone is not an error (EPERM cannot happen: it is our child's group). */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Waits until the process group is gone, at most `boundMs`. */
async function groupGone(pid: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n[cut: ${text.length - limit} more characters not kept]`;
}

/** Keeps the beginning of a growing text, counting what did not fit. */
class HeadText {
  private kept = '';
  private dropped = 0;
  constructor(readonly limit: number) {}

  append(text: string): void {
    const room = this.limit - this.kept.length;
    if (room > 0) this.kept += text.slice(0, room);
    this.dropped += Math.max(0, text.length - Math.max(room, 0));
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    return this.truncated ? `${this.kept}\n[output cut: ${this.dropped} more characters not kept]` : this.kept;
  }
}

/** Keeps the end of a growing text. */
class TailText {
  private kept = '';
  constructor(readonly limit: number) {}

  append(text: string): void {
    this.kept += text;
    if (this.kept.length > 2 * this.limit) this.kept = this.kept.slice(-this.limit);
  }

  text(): string {
    return this.kept.slice(-this.limit);
  }
}
