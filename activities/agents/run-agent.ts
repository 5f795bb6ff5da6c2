import { stat } from 'node:fs/promises';
import { agentIsolation, type AgentIsolation, type AgentUser } from '../../lib/agent-isolation';
import type { OutputChunk } from '../../lib/live-output';
import {
  AgentOptionsError,
  type AgentCli,
  type AgentEvent,
  type AgentRunOptions,
  type AgentTokens,
  type HomeFile,
  type ParserContext,
} from './agent-cli';
import { sessionFileEnd } from './agent-sessions';
import { ENV_NAME } from '../../domain/env-names';
import { TIMEOUT_KILL_GRACE_MS } from '../../domain/run-limits';
import { agentBaseEnv, agentUserEnv } from './agent-env';
import { leaseAgentUser, type AgentUserLease } from './agent-users';
import { prepareWorkingDirectory, WorkingDirectoryError } from './agent-workdir';
import { agentLaunch } from './parent-death';
import { DeliveryQueue } from './process/delivery-queue';
import { groupGone, spawnAgentProcess } from './process/process-group';
import { RunKills } from './process/run-kills';
import { endingFailure } from './process/run-ending';
import { RunOutput } from './process/run-output';
import { AgentCancelledError, emptySummary, processFailure, type AgentRunSummary } from './process/run-summary';

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
  /** The environment before secrets; agentBaseEnv(process.env, cli, modelSecrets) when absent. */
  baseEnv?: Record<string, string>;
  /** Model credentials the service read from files (config.orchestration.agentModelSecrets). */
  modelSecrets?: Record<string, string>;
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

export { AgentCancelledError, AgentProcessError, AgentTimeoutError, type AgentRunSummary } from './process/run-summary';

export async function runAgent(options: RunAgentOptions): Promise<AgentRunSummary> {
  const secrets = checkedSecrets(options.secrets ?? {});
  // What the CLI's options may read (an endpoint): the agent's environment before the pool user's own variables.
  const cliEnv = { ...(options.baseEnv ?? agentBaseEnv(process.env, options.cli, options.modelSecrets)), ...secrets };
  const args = options.cli.buildArgs(options.run, cliEnv);
  const homeFiles = options.cli.homeFiles?.(options.run, cliEnv) ?? [];
  const isolation = options.isolation ?? agentIsolation();
  const summary = emptySummary();

  if (isolation.mode === 'refused') throw processFailure(summary, `os agentes não podem rodar aqui: ${isolation.reason}`);
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);

  const lease = isolation.mode === 'user-pool' ? await leaseFor(options, isolation.users, summary, homeFiles) : null;
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

/** A user of the pool for the run (agent-users.ts); a cancel while waiting for one is the run's cancel. */
async function leaseFor(
  options: RunAgentOptions,
  users: readonly AgentUser[],
  summary: AgentRunSummary,
  homeFiles: readonly HomeFile[],
): Promise<AgentUserLease> {
  try {
    // The user's HOME is emptied; a `continue` gets its session back from the store (agent-sessions.ts).
    const resume = options.run.resumeSessionId;
    // Only a hint (the directory is checked later, as the leased user): its owner is asked for first.
    const owner = await stat(options.cwd).then(
      (found) => found.uid,
      () => undefined,
    );
    return await leaseAgentUser(users, {
      ...(owner !== undefined ? { preferUid: owner } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      homeFiles,
      ...(options.sessions
        ? { sessions: { ...options.sessions, layout: options.cli.sessions, ...(resume !== undefined ? { resume } : {}) } }
        : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
    throw error;
  }
}

/** The run itself, as the leased user (or the service's own user when `lease` is null): prepared, then the process. */
async function runAs(
  options: RunAgentOptions,
  args: string[],
  secrets: Record<string, string>,
  lease: AgentUserLease | null,
  summary: AgentRunSummary,
): Promise<AgentRunSummary> {
  const user = lease?.user ?? null;
  const baseEnv = options.baseEnv ?? agentBaseEnv(process.env, options.cli, options.modelSecrets);
  const agentEnv = { ...(user === null ? baseEnv : agentUserEnv(baseEnv, user)), ...secrets, ...options.runEnv };
  const home = agentEnv.HOME ?? process.env.HOME ?? '';
  const env = { ...agentEnv, ...options.cli.processEnv?.(options.run, { env: agentEnv, home }) };

  let cwd: string;
  try {
    cwd = await prepareWorkingDirectory(options.cwd, options.workdirRoots, user);
  } catch (error) {
    if (!(error instanceof WorkingDirectoryError)) throw error;
    throw processFailure(summary, error.ptBrMessage);
  }
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
  if (options.workspace) await inWorkspace(summary, () => options.workspace!.prepare(cwd, user));
  if (options.signal?.aborted) throw new AgentCancelledError(summary, options.signal.reason);
  await options.beforeSpawn?.();

  const parserContext = { sessionTokensBefore: await sessionTokensBefore(options.cli, lease) };
  await runProcess(options, { args, cwd, env, user, parserContext }, summary);
  return summary;
}

/**
 * The tokens the resumed session had used, for a CLI whose result counts the whole session (its
 * adapter's `sessionTokens`): read from the session file the lease restored. Null when the CLI counts
 * per run, nothing was restored (no pool user: the CLI's own HOME), or the file cannot be read.
 */
async function sessionTokensBefore(cli: AgentCli, lease: AgentUserLease | null): Promise<AgentTokens | null> {
  const file = lease?.restoredSession ?? null;
  if (cli.sessionTokens === undefined || file === null) return null;
  return cli.sessionTokens(await sessionFileEnd(file).catch(() => ''));
}

/**
 * The agent's process, from its spawn to its end: its limits and kills (RunKills), its output read
 * into the summary and delivered in order (RunOutput, DeliveryQueue), its ending classified
 * (endingFailure), then the workspace's completion. Resolves when the run succeeded, else throws.
 */
async function runProcess(
  options: RunAgentOptions,
  start: { args: string[]; cwd: string; env: Record<string, string>; user: AgentUser | null; parserContext: ParserContext },
  summary: AgentRunSummary,
): Promise<void> {
  const { user } = start;
  const launch = agentLaunch(options.command, start.args, undefined, user === null ? undefined : { uid: user.uid, gid: user.gid });
  const agent = spawnAgentProcess(launch.command, launch.args, start.cwd, start.env);
  summary.pid = agent.pid ?? null;
  if (summary.pid !== null) options.onSpawn?.();
  const spawnedAt = performance.now();

  const kills = new RunKills(agent.pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  kills.limitTime(options.timeLimitMs);
  kills.watch(options.signal);
  agent.child.once('exit', () => kills.agentExited());

  // The agent may exit without reading its input; its exit status says what happened.
  agent.child.stdin.on('error', () => undefined);
  agent.child.stdin.end(options.run.prompt);

  const queue = new DeliveryQueue(() => kills.terminate());
  const output = new RunOutput(
    {
      cli: options.cli,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
      maxStderrChars: options.maxStderrChars ?? DEFAULT_MAX_STDERR_CHARS,
      parserContext: start.parserContext,
    },
    summary,
    queue,
  );
  output.read(agent.child.stdout, agent.child.stderr);

  try {
    const ending = await agent.ended;
    output.end();
    await queue.drained();
    kills.settled();
    output.summarise();
    // A CLI that reports no duration (Codex CLI) gets its process's: the run's report and statistics show one.
    summary.durationMs ??= Math.round(performance.now() - spawnedAt);
    const failure = await endingFailure(summary, {
      command: options.command,
      cli: options.cli,
      ending,
      throughSetpriv: launch.throughSetpriv,
      stderrTail: output.stderrTail(),
      cancelled: kills.cancelled,
      cancelReason: options.signal?.reason,
      timedOut: kills.timedOut,
      timeLimitMs: options.timeLimitMs,
      timedOutGroupGone: () => kills.groupGone(TIMEOUT_KILL_GRACE_MS),
      deliveryFailure: queue.failed,
      resultIsError: output.resultIsError,
    });
    if (failure !== null) throw failure.error;
    if (options.workspace) {
      // Nothing the agent started may still be writing while its work is collected.
      await kills.groupGone();
      await inWorkspace(summary, () => options.workspace!.complete(start.cwd, user, summary));
    }
  } finally {
    kills.dispose();
  }
}

/** Runs a workspace step; its failure becomes the run's (AgentProcessError with its message). */
async function inWorkspace(summary: AgentRunSummary, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    throw processFailure(summary, error instanceof Error ? error.message : String(error));
  }
}

function checkedSecrets(secrets: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(secrets)) {
    if (!ENV_NAME.test(name)) throw new AgentOptionsError(`o nome de segredo "${name}" não é um nome válido de variável de ambiente`);
  }
  return secrets;
}
