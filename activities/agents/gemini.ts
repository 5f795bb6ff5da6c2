import { credentialsHint, TURN_LIMIT_HINT } from '../../domain/run-messages';
import type { OutputChunk } from '../../lib/live-output';
import {
  AgentOptionsError,
  type AgentCli,
  type AgentEvent,
  type AgentRunOptions,
  type AgentTokens,
  type HomeFile,
  type LineParser,
  type OutputMapper,
} from './agent-cli';
import {
  checkedMaxTurns,
  checkedPermissionMode,
  clip,
  HeldText,
  isObject,
  type JsonObject,
  MAX_TOKEN_COUNT,
  optionValue,
  parseObject,
  stderrChunk,
  stringOrNull,
} from './cli-lines';

/**
 * Google's Gemini CLI (`@google/gemini-cli`, pinned 0.61.0) headless, with streaming JSON output:
 *   gemini --output-format stream-json --skip-trust --approval-mode MODE [-m MODEL] [--resume SESSION_ID]
 * with the prompt on standard input; its settings in `~/.gemini/settings.json` of the run's emptied
 * HOME (homeFiles). What it prints, sends and cannot do: docs/gemini-cli.md.
 */

/**
 * Its `--approval-mode` values; all four run headless without hanging: a tool the mode would ask
 * about is not offered to the model in a run without a terminal, never waited for. `yolo` runs every
 * tool; `auto_edit` edits files but runs no shell; `default` only reads; `plan` reads and writes its plan.
 */
export const GEMINI_PERMISSION_MODES: readonly string[] = ['yolo', 'auto_edit', 'default', 'plan'];
const GEMINI_DEFAULT_PERMISSION_MODE = 'yolo';
/** Its session ids are UUIDs; `--resume` also takes `latest` or an index, which must never be sent. */
const GEMINI_SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Attempts of a model call (its default is 10, with backoff: minutes against a failing API). */
const GEMINI_DEFAULT_MAX_ATTEMPTS = 1;
/** The CLI's own bound on `general.maxAttempts`. */
const GEMINI_MAX_ATTEMPTS_LIMIT = 10;

export const geminiCli: AgentCli = {
  name: 'gemini',
  permissionModes: GEMINI_PERMISSION_MODES,
  defaultPermissionMode: GEMINI_DEFAULT_PERMISSION_MODE,
  // GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL, GEMINI_CLI_NO_RELAUNCH, ... (Vertex AI and Google login are not supported here).
  envPrefixes: ['GEMINI_', 'GOOGLE_GEMINI_'],
  // `~/.gemini/tmp/<project>/chats/session-<yyyy-mm-ddThh-mm>-<first 8 of the id>.jsonl`; the project
  // directory is the working directory's name (a `-N` suffix on a clash). A resumed run writes on in
  // the session's file and also leaves a stub of its own with the same id: the newest is the session.
  sessions: {
    dir: ['.gemini', 'tmp'],
    depth: 2,
    matches: (fileName, sessionId) =>
      GEMINI_SESSION_ID.test(sessionId) &&
      fileName.startsWith('session-') &&
      (fileName.endsWith(`-${sessionId.slice(0, 8)}.jsonl`) || fileName.endsWith(`-${sessionId.slice(0, 8)}.json`)),
  },

  buildArgs(options: AgentRunOptions): string[] {
    checkedMaxTurns(options.maxTurns);
    const permissionMode = checkedPermissionMode(options.permissionMode, GEMINI_PERMISSION_MODES, GEMINI_DEFAULT_PERMISSION_MODE);
    if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
      throw new AgentOptionsError(
        `o CLI gemini não aceita allowedTools aqui (são nomes de ferramentas do Claude Code); escolha o permissionMode dele (${GEMINI_PERMISSION_MODES.join(', ')})`,
      );
    }
    // --skip-trust: headless, an untrusted working directory is an error (exit 55).
    const args = ['--output-format', 'stream-json', '--skip-trust', '--approval-mode', permissionMode];
    if (options.model !== undefined) args.push('-m', optionValue('model', options.model));
    if (options.resumeSessionId !== undefined) {
      if (!GEMINI_SESSION_ID.test(options.resumeSessionId)) {
        throw new AgentOptionsError(
          `resumeSessionId deve ser um id de sessão do Gemini CLI (um UUID), recebido "${options.resumeSessionId}"`,
        );
      }
      args.push('--resume', options.resumeSessionId);
    }
    return args;
  },

  homeFiles(options: AgentRunOptions, env: Readonly<Record<string, string>>): HomeFile[] {
    const files: HomeFile[] = [{ path: '.gemini/settings.json', content: `${JSON.stringify(geminiSettings(options, env), null, 2)}\n` }];
    // The user's global context file: the CLI adds it to its own system prompt (GEMINI_SYSTEM_MD,
    // which replaces it, is read from the environment only). docs/gemini-cli.md, "System prompt".
    if (options.systemPrompt !== undefined) {
      if (options.systemPrompt.trim() === '') throw new AgentOptionsError('systemPrompt não pode ser vazio');
      files.push({
        path: '.gemini/GEMINI.md',
        content: options.systemPrompt.endsWith('\n') ? options.systemPrompt : `${options.systemPrompt}\n`,
      });
    }
    return files;
  },

  // One process: the CLI otherwise relaunches itself as a child that outlives a killed parent (the
  // parent's death signal, parent-death.ts, would reach the parent only) and ignores SIGTERM in the parent.
  processEnv: () => ({ GEMINI_CLI_NO_RELAUNCH: 'true' }),

  parser: () => new GeminiParser(),

  outputMapper: () => new GeminiOutputMapper(),

  failureHint(resultText: string): string | null {
    if (/Reached max session turns/i.test(resultText)) return TURN_LIMIT_HINT;
    return /API key not valid|API_KEY_INVALID|UNAUTHENTICATED|PERMISSION_DENIED|invalid authentication|GEMINI_API_KEY/i.test(resultText)
      ? credentialsHint('GEMINI_API_KEY', 'docs/gemini-cli.md')
      : null;
  },

  failureStderr: failureStderrOf,
};

/** What the approval mode `yolo` prints on standard error at every start (twice, 0.61.0). */
export const YOLO_NOTICE = 'YOLO mode is enabled. All tool calls will be automatically approved.';

/**
 * Gemini CLI's standard error as a failure's message keeps it: without the YOLO notice, the stack
 * trace of its API error (the `at` frames and the error's fields after them) and the path of its
 * "full report", a file in the run's HOME that is gone once the run ends. Its attempt and error lines stay.
 */
export function failureStderrOf(tail: string): string {
  const kept: string[] = [];
  let inStack = false;
  for (const line of tail.split('\n')) {
    if (line.trim() === YOLO_NOTICE) continue;
    if (/^\s+at /.test(line)) {
      inStack = true;
      continue;
    }
    // After the frames, the error's own fields: indented lines, then its closing brace.
    if (inStack && /^(\s|\})/.test(line)) continue;
    inStack = false;
    kept.push(line.replace(/ Full report available at: \S+/, ''));
  }
  return kept.join('\n');
}

/**
 * `~/.gemini/settings.json` of a run: the API key's auth type (with GOOGLE_GEMINI_BASE_URL set and no
 * auth type the CLI exits 41), no usage statistics or telemetry (they reach Google's hosts), no
 * update check, no session clean-up (a kept session may be older than its 30 days), one attempt per
 * model call (GEMINI_MAX_ATTEMPTS, read here, not by the CLI, allows up to 10), the turn limit, no
 * warnings on standard error for a terminal there is not and a ripgrep the package lacks, and no
 * project `.env` read into its environment.
 */
export function geminiSettings(options: AgentRunOptions, env: Readonly<Record<string, string>>): Record<string, unknown> {
  const attempts = env.GEMINI_MAX_ATTEMPTS === undefined ? GEMINI_DEFAULT_MAX_ATTEMPTS : Number(env.GEMINI_MAX_ATTEMPTS);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > GEMINI_MAX_ATTEMPTS_LIMIT) {
    throw new AgentOptionsError(
      `GEMINI_MAX_ATTEMPTS deve ser um inteiro de 1 a ${GEMINI_MAX_ATTEMPTS_LIMIT}, recebido "${env.GEMINI_MAX_ATTEMPTS}"`,
    );
  }
  return {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      maxAttempts: attempts,
      sessionRetention: { enabled: false },
    },
    // A model turn is one call to the model: the run ends with FatalTurnLimitedError (exit 53) before the next.
    ...(options.maxTurns > 0 ? { model: { maxSessionTurns: options.maxTurns } } : {}),
    ui: { showCompatibilityWarnings: false },
    tools: { useRipgrep: false },
    // A project's `.env` is not loaded into the CLI's environment (it could name another
    // GOOGLE_GEMINI_BASE_URL for the key); its `.gemini/.env` still is (docs/gemini-cli.md).
    advanced: { ignoreLocalEnv: true },
  };
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * The result's `stats` as tokens: `input` is the prompt without its cached part (`input_tokens` =
 * `input` + `cached`), `cached` is read from the cache, `output_tokens` the answer's; thinking tokens are
 * in `total_tokens` only (billed as output): output = `output_tokens` + (`total_tokens` −
 * `input_tokens` − `output_tokens`). Gemini reports no cache writes. Null without stats or counts.
 */
export function geminiTokens(stats: unknown): AgentTokens | null {
  if (!isObject(stats)) return null;
  const total = count(stats.total_tokens);
  const prompt = count(stats.input_tokens);
  const output = count(stats.output_tokens);
  const cached = count(stats.cached);
  const input = count(stats.input);
  if ([total, prompt, output, cached, input].every((value) => value === null)) return null;
  const thinking = total !== null && prompt !== null && output !== null ? Math.max(0, total - prompt - output) : 0;
  const bounded = (value: number) => Math.min(value, MAX_TOKEN_COUNT);
  return {
    input: bounded(input ?? Math.max(0, (prompt ?? 0) - (cached ?? 0))),
    output: bounded((output ?? 0) + thinking),
    cacheRead: bounded(cached ?? 0),
    cacheCreation: 0,
  };
}

/**
 * One run's stream-json (docs/gemini-cli.md): `init` (session id, model), `message` lines of the
 * assistant with `delta: true` (pieces of text, joined here into whole messages, a message ending at
 * the next line of another kind), `tool_use`, `tool_result`, `error` (a warning, or the error of an
 * invalid answer), then `result` (`status`, `error`, `stats`), which has no text and no session id:
 * its text is the last message's (or the error's), its session the init's, its turns counted here
 * (a turn is one answer of the model: its text and tool calls).
 */
export class GeminiParser implements LineParser {
  private sessionId: string | null = null;
  private startedAt: number | null = null;
  /** The text of the assistant message being streamed. */
  private held = '';
  private lastMessage: string | null = null;
  private lastError: string | null = null;
  private turns = 0;
  private turnOpen = false;
  private resultSeen = false;

  line(line: string): AgentEvent[] {
    const raw: AgentEvent = { kind: 'raw', line };
    const event = parseObject(line);
    if (event === null) return [...this.flush(), raw];
    switch (event.type) {
      case 'init':
        if (typeof event.session_id !== 'string') return [raw];
        this.sessionId = event.session_id;
        this.startedAt = timeOf(event.timestamp);
        return [{ kind: 'init', sessionId: event.session_id, model: stringOrNull(event.model), cwd: null }];
      case 'message':
        if (event.role !== 'assistant' || typeof event.content !== 'string') return [...this.flush(), raw];
        this.openTurn();
        this.held += event.content;
        // A whole message (never seen in 0.61.0, which streams every answer) stands alone.
        return event.delta === true ? [] : this.flush();
      case 'tool_use':
        this.openTurn();
        return [...this.flush(), raw];
      case 'tool_result':
        this.turnOpen = false;
        return [...this.flush(), raw];
      case 'error':
        if (event.severity === 'error' && typeof event.message === 'string') this.lastError = event.message;
        return [...this.flush(), raw];
      case 'result':
        return [...this.flush(), this.result(event)];
      default:
        return [...this.flush(), raw];
    }
  }

  end(): AgentEvent[] {
    const events = this.flush();
    if (this.resultSeen) return events;
    this.resultSeen = true;
    // Ended without its result line (a SIGTERM gives exit 0 and no last line; a failed start, e.g. exit 41
    // or 42, says why on standard error only): not a success. Its text is an error line's, if any, so a
    // cancelled run's outcome stays the assistant's text (run-outcome.ts).
    return [...events, this.resultEvent({ isError: true, subtype: null, resultText: this.lastError, durationMs: null, tokens: null })];
  }

  private openTurn(): void {
    if (this.turnOpen) return;
    this.turnOpen = true;
    this.turns += 1;
  }

  private flush(): AgentEvent[] {
    const text = this.held;
    this.held = '';
    if (text === '') return [];
    this.lastMessage = text;
    return [{ kind: 'text', text, sessionId: this.sessionId }];
  }

  private result(event: JsonObject): AgentEvent {
    this.resultSeen = true;
    this.turnOpen = false;
    const error = isObject(event.error) ? event.error : null;
    const isError = event.status !== 'success' || error !== null;
    const stats = isObject(event.stats) ? event.stats : null;
    // An error result says duration 0: the time from the init line to the result's is the same measure.
    const reported = count(stats?.duration_ms);
    const endedAt = timeOf(event.timestamp);
    const measured = this.startedAt !== null && endedAt !== null && endedAt >= this.startedAt ? endedAt - this.startedAt : null;
    return this.resultEvent({
      isError,
      subtype: isError ? (stringOrNull(error?.type) ?? stringOrNull(event.status) ?? 'error') : 'success',
      resultText: isError ? (stringOrNull(error?.message) ?? this.lastError ?? stringOrNull(event.status)) : this.lastMessage,
      durationMs: reported !== null && reported > 0 ? reported : (measured ?? reported),
      tokens: geminiTokens(stats),
    });
  }

  private resultEvent(fields: {
    isError: boolean;
    subtype: string | null;
    resultText: string | null;
    durationMs: number | null;
    tokens: AgentTokens | null;
  }): AgentEvent {
    return { kind: 'result', ...fields, sessionId: this.sessionId, costUsd: null, turns: this.turns };
  }
}

function timeOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

const TOOL_COMMAND_MAX = 120;
const TOOL_TEXT_MAX = 80;

/**
 * Gemini CLI's stream-json as terminal lines (contract 4.4, as ClaudeOutputMapper for Claude Code):
 * - `chunk`: the assistant's text deltas, a line at a time as soon as the line ends, the rest when the
 *   message ends (the next line of another kind); a stdout line that is not JSON.
 * - `tool`: one per `tool_use`, "<tool_name>: <detail>" (the detail from its `parameters`).
 * - `turn`: "Turno N" once per answer of the model, when it ends: its first `tool_result`, else the
 *   result or the end of the output.
 * - `system`: an `error` line's message (warnings included), and the result summary
 *   "Resultado: N turnos | duração: Ys | sessão: <8 chars>..." (Gemini reports no cost).
 * - `stderr`: each non-empty line of standard error.
 * The user's prompt echoed as a `message` line and the tools' results give nothing.
 */
export class GeminiOutputMapper implements OutputMapper {
  private turns = 0;
  private turnOpen = false;
  private readonly text = new HeldText();
  private yoloShown = false;
  private sessionId: string | null = null;

  stdout(line: string): OutputChunk[] {
    const event = parseObject(line);
    if (event === null) return line.trim() === '' ? [] : [...this.text.flush(), { type: 'chunk', content: line.trim() }];
    switch (event.type) {
      case 'init':
        this.sessionId = stringOrNull(event.session_id);
        return [];
      case 'message':
        if (event.role !== 'assistant' || typeof event.content !== 'string') return [];
        this.turnOpen = true;
        return event.delta === true ? this.text.add(event.content) : [...this.text.add(event.content), ...this.text.flush()];
      case 'tool_use':
        this.turnOpen = true;
        return [...this.text.flush(), toolChunk(event)];
      case 'tool_result':
        return this.closeTurn();
      case 'error':
        return typeof event.message === 'string' && event.message.trim() !== ''
          ? [...this.text.flush(), { type: 'system', content: event.message.trim() }]
          : this.text.flush();
      case 'result': {
        const summary = this.summary(event);
        return [...this.closeTurn(), ...(summary === null ? [] : [{ type: 'system' as const, content: summary }])];
      }
      default:
        return this.text.flush();
    }
  }

  /** A line of standard error; the YOLO notice, which the CLI prints twice at every start, once. */
  stderr(line: string): OutputChunk[] {
    if (line.trim() === YOLO_NOTICE) {
      if (this.yoloShown) return [];
      this.yoloShown = true;
    }
    return stderrChunk(line);
  }

  end(): OutputChunk[] {
    return this.closeTurn();
  }

  /** The held text, then the open turn's line ("Turno N"), if a turn is open. */
  private closeTurn(): OutputChunk[] {
    const chunks = this.text.flush();
    if (!this.turnOpen) return chunks;
    this.turnOpen = false;
    this.turns += 1;
    chunks.push({ type: 'turn', content: `Turno ${this.turns}`, turn: this.turns });
    return chunks;
  }

  /** "Resultado: N turnos | duração: Ys | sessão: <8 chars>...": the turns counted, the stats' duration, the init's session. */
  private summary(event: JsonObject): string | null {
    const turns = this.turns + (this.turnOpen ? 1 : 0);
    const duration = isObject(event.stats) ? count(event.stats.duration_ms) : null;
    const parts = [`${turns} turnos`];
    if (duration !== null && duration > 0) parts.push(`duração: ${(duration / 1000).toFixed(1)}s`);
    if (this.sessionId !== null) parts.push(`sessão: ${this.sessionId.slice(0, 8)}...`);
    return `Resultado: ${parts.join(' | ')}`;
  }
}

/** "<tool_name>: <detail>", the detail the first present of command (120), file_path, pattern, query, dir_path, path, url, prompt (80), description (80). */
function toolChunk(event: JsonObject): OutputChunk {
  const name = typeof event.tool_name === 'string' && event.tool_name !== '' ? event.tool_name : 'tool';
  const input = isObject(event.parameters) ? event.parameters : {};
  const fields: Array<[string, number | null]> = [
    ['command', TOOL_COMMAND_MAX],
    ['file_path', null],
    ['pattern', null],
    ['query', null],
    ['dir_path', null],
    ['path', null],
    ['url', null],
    ['prompt', TOOL_TEXT_MAX],
    ['description', TOOL_TEXT_MAX],
  ];
  for (const [field, max] of fields) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') {
      return { type: 'tool', toolName: name, content: `${name}: ${max === null ? value : clip(value, max)}` };
    }
  }
  return { type: 'tool', toolName: name, content: name };
}
