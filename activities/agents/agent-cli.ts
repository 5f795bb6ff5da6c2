/**
 * The contract between the agent process runner (run-agent.ts) and one coding-agent command line
 * tool. Supporting another CLI means one new file implementing AgentCli, listed in agent-clis.ts;
 * the runner, the activity and the routes do not change. See docs/agent-process.md.
 */

import { FAILURE_TYPES } from '../../domain/failure-types';
import type { OutputChunk } from '../../lib/live-output';

/** What one run asks of the agent. The prompt goes to standard input, never into the argument list. */
export interface AgentRunOptions {
  prompt: string;
  /** The agent stops after this many turns; 0 means no limit (no `--max-turns`). */
  maxTurns: number;
  /** The CLI's default model when absent. */
  model?: string;
  /** One of the CLI's `permissionModes`; its `defaultPermissionMode` when absent. */
  permissionMode?: string;
  /** Continue this session (the id an earlier run's init or result event reported). */
  resumeSessionId?: string;
  /** Replaces the CLI's default system prompt (the agent's own prompt). */
  systemPrompt?: string;
  /** The only tools the agent may use without asking (Claude Code names or patterns, e.g. `Read`, `Bash(git:*)`); all when absent. */
  allowedTools?: string[];
}

/** One line of the agent's standard output, understood. */
export type AgentEvent =
  | { kind: 'init'; sessionId: string; model: string | null; cwd: string | null }
  | { kind: 'text'; text: string; sessionId: string | null }
  | {
      kind: 'result';
      isError: boolean;
      /** The CLI's own word for how the run ended (Claude Code: success, error_max_turns, ...). */
      subtype: string | null;
      /** The final answer, or the error message of a failed run. */
      resultText: string | null;
      sessionId: string | null;
      costUsd: number | null;
      durationMs: number | null;
      turns: number | null;
      /** The run's token counts (the result's `usage`), null when it reported none. */
      tokens: AgentTokens | null;
    }
  /** Anything else (tool calls, tool results, other JSON, plain text): passed through as it came. */
  | { kind: 'raw'; line: string };

/** Tokens one run used, summed over its API calls as the CLI reports them (docs/statistics.md). */
export interface AgentTokens {
  input: number;
  output: number;
  /** Input read from the prompt cache, and input written to it: billed apart from `input`. */
  cacheRead: number;
  cacheCreation: number;
}

export interface AgentCli {
  /** Short name used in logs and docs. */
  readonly name: string;
  /**
   * The permission modes the CLI accepts (an agent's `permissionMode`), and the one an agent gets
   * when it sets none or one the CLI does not know (nobody is there to answer permission prompts).
   */
  readonly permissionModes: readonly string[];
  readonly defaultPermissionMode: string;
  /** Prefixes of the environment variables the CLI reads its settings from: kept in the agent's environment (agent-env.ts). */
  readonly envPrefixes: readonly string[];
  /** Where the CLI keeps its sessions in its user's HOME, so that a `continue` can resume one (agent-sessions.ts). */
  readonly sessions: SessionLayout;
  /**
   * The argument list after the command; throws AgentOptionsError on options the CLI would misread.
   * `env` is the environment the agent's process gets (a CLI that takes its endpoint from an option,
   * not from the environment, reads it there).
   */
  buildArgs(options: AgentRunOptions, env: Readonly<Record<string, string>>): string[];
  /**
   * Files the CLI needs in the run's emptied HOME before it starts (settings that turn telemetry and
   * update checks off, a system prompt the CLI reads from a file), relative to HOME; none when absent.
   */
  homeFiles?(options: AgentRunOptions, env: Readonly<Record<string, string>>): HomeFile[];
  /**
   * Variables the CLI's process gets on top of the agent's environment: its own switches (one process
   * instead of a relaunched child, a settings file in the run's HOME). `home` is the run's HOME.
   */
  processEnv?(options: AgentRunOptions, context: { env: Readonly<Record<string, string>>; home: string }): Record<string, string>;
  /**
   * A fresh parser of one run's standard output: it may keep state across lines (deltas, a final event
   * without text). `context` says what the run resumes from.
   */
  parser(context?: ParserContext): LineParser;
  /**
   * For a CLI whose result counts the whole session's tokens, not the run's (Codex CLI): the tokens a
   * session's file says were used before this run, given the file's end (its last lines, whole).
   * Null when the text says none. The parser of the run that resumes it subtracts them.
   */
  sessionTokens?(sessionFileEnd: string): AgentTokens | null;
  /** A fresh mapper of one run's output to the lines the panel's terminal shows (it keeps state across lines). */
  outputMapper(): OutputMapper;
  /** What an operator should do about a failure the CLI reported (its error result), or null. */
  failureHint?(resultText: string): string | null;
  /**
   * What of the end of standard error a failed run's message (the record's error, a person reads it)
   * keeps: without the CLI's notices and stack traces. All of it when absent.
   */
  failureStderr?(stderrTail: string): string;
}

/** What a run's parser is told before the first line. */
export interface ParserContext {
  /** The tokens the resumed session had used before this run (the adapter's `sessionTokens`); null when unknown or not resumed. */
  sessionTokensBefore: AgentTokens | null;
}

/** Understands one run's standard output, line by line. Never throws. */
export interface LineParser {
  /** The events one line (without its newline) gives: often one, none for a line only remembered, several at most. */
  line(line: string): AgentEvent[];
  /** Once the output ended: what the parser still held (a result assembled from earlier lines). */
  end(): AgentEvent[];
}

/** A file written into the run's HOME, owned by the run's user, mode 0600 (its directories 0700). */
export interface HomeFile {
  /** Relative to HOME, plain segments (`.codex/config.toml`). */
  path: string;
  content: string;
}

/** Turns one run's output into terminal lines (contract 4.4), in order. Never throws. */
export interface OutputMapper {
  /** The lines one line of standard output gives (often none). */
  stdout(line: string): OutputChunk[];
  /** The lines one line of standard error gives. */
  stderr(line: string): OutputChunk[];
  /** Once the output ended: what was still held (text without its line end, a turn not closed yet). */
  end(): OutputChunk[];
}

/**
 * Where a CLI keeps its sessions in its user's HOME: `<HOME>/<dir...>/<d1>/.../<d_depth>/<file>`, the
 * file of a session `depth` directories below `dir` (Claude Code: one, the project directory; a CLI
 * that files them by date: three), recognised by its name.
 */
export interface SessionLayout {
  /** The directory of the sessions, as path parts below HOME. */
  readonly dir: readonly string[];
  /** How many directories lie between `dir` and a session's file. */
  readonly depth: number;
  /** Whether a file's name (a plain name) is the session `sessionId`'s; false for an id that cannot name one. */
  matches(fileName: string, sessionId: string): boolean;
}

/** Options that cannot be turned into a safe argument list (not retryable: the input is wrong; domain/failure-types.ts). */
export class AgentOptionsError extends Error {
  override name: string = FAILURE_TYPES.agentOptions;
}
