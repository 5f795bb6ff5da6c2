import { credentialsHint } from '../../domain/run-messages';
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
  type ParserContext,
} from './agent-cli';
import {
  checkedMaxTurns,
  checkedPermissionMode,
  clip,
  isObject,
  type JsonObject,
  nonEmpty,
  optionValue,
  parseObject,
  stderrChunk,
  stringOrNull,
  tokenCount,
} from './cli-lines';

/**
 * OpenAI's Codex CLI (@openai/codex, pinned 0.169.0) in non-interactive mode with JSONL output
 * (docs/codex-cli.md):
 *
 *   codex exec --json --skip-git-repo-check --sandbox MODE -c approval_policy="never" [--model MODEL]
 *              -c model_provider="orchestrator" -c model_providers.orchestrator={name, base_url, env_key,
 *                 wire_api="responses", supports_websockets=false, request_max_retries=N, stream_max_retries=N}
 *              -c analytics.enabled=false --disable plugins --disable unbounded_connection_retries
 *              [resume SESSION_ID] -
 *
 * with the prompt on standard input (`-`). The model API is always this provider of our own: Codex
 * ignores OPENAI_BASE_URL, so the adapter reads it (OpenAI's own `https://api.openai.com/v1` when
 * unset) and the key variable (`CODEX_API_KEY` when set, else `OPENAI_API_KEY`) from the agent's
 * environment; plain HTTP streaming (no WebSocket), a few retries (`CODEX_MAX_RETRIES`, read by
 * this adapter, default 2) and no endless "waiting for network". Without analytics off and plugins
 * disabled Codex looks up chatgpt.com, ab.chatgpt.com and api.github.com.
 */

/** Codex's own sandbox words (`--sandbox`); the agents' default is full access (the pool user is the sandbox, docs/agent-process.md). */
export const CODEX_PERMISSION_MODES: readonly string[] = ['danger-full-access', 'workspace-write', 'read-only'];
const CODEX_DEFAULT_PERMISSION_MODE = 'danger-full-access';

/** The provider id the arguments define (not one of Codex's built-in `openai`, `ollama`, `lmstudio`). */
export const CODEX_PROVIDER_ID = 'orchestrator';
/** OpenAI's API when the environment names no other (OPENAI_BASE_URL). */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/**
 * Retries of a failed request and of a failed stream when CODEX_MAX_RETRIES does not say. Codex
 * retries at both levels, so a status that stays 5xx is asked (N+1)² times: 9 requests in about 3 s.
 */
export const CODEX_DEFAULT_MAX_RETRIES = 2;
const CODEX_MAX_RETRIES_LIMIT = 5;

/** The system prompt's file in the run's HOME, named by `model_instructions_file` (relative to `~/.codex`) in its config.toml. */
export const CODEX_SYSTEM_PROMPT_FILE = 'system-prompt.md';

/** Thread ids are UUIDs (v7); a session file is `rollout-<timestamp>-<thread id>.jsonl`. */
const CODEX_SESSION_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Variables that would move Codex's state out of the run's HOME, where the session store and the settings expect it. */
const REFUSED_ENV = ['CODEX_HOME', 'CODEX_SQLITE_HOME'];

export const codexCli: AgentCli = {
  name: 'codex',
  permissionModes: CODEX_PERMISSION_MODES,
  defaultPermissionMode: CODEX_DEFAULT_PERMISSION_MODE,
  // OPENAI_API_KEY / OPENAI_BASE_URL (read here), CODEX_API_KEY, CODEX_CA_CERTIFICATE, CODEX_MAX_RETRIES.
  envPrefixes: ['OPENAI_', 'CODEX_'],
  sessions: {
    // ~/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<thread id>.jsonl; a resumed thread appends to its file.
    dir: ['.codex', 'sessions'],
    depth: 3,
    matches: (fileName, sessionId) =>
      CODEX_SESSION_ID.test(sessionId) && fileName.startsWith('rollout-') && fileName.endsWith(`-${sessionId}.jsonl`),
  },

  buildArgs(options: AgentRunOptions, env: Readonly<Record<string, string>>): string[] {
    if (checkedMaxTurns(options.maxTurns) > 0) {
      throw new AgentOptionsError(`o codex não tem limite de turnos: maxTurns deve ser 0 (sem limite), recebido ${options.maxTurns}`);
    }
    if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
      throw new AgentOptionsError(
        `o codex não limita suas ferramentas por nome: allowedTools deve ser vazio, recebido ${options.allowedTools.join(', ')}`,
      );
    }
    const permissionMode = checkedPermissionMode(options.permissionMode, CODEX_PERMISSION_MODES, CODEX_DEFAULT_PERMISSION_MODE);
    for (const name of REFUSED_ENV) {
      if (env[name] !== undefined) {
        throw new AgentOptionsError(
          `a variável ${name} não pode ser definida para o codex: as sessões e as configurações dele ficam no HOME da execução`,
        );
      }
    }
    if (options.systemPrompt !== undefined) nonEmpty('systemPrompt', options.systemPrompt);

    const args = ['exec', '--json', '--skip-git-repo-check', '--sandbox', permissionMode, '-c', 'approval_policy="never"'];
    if (options.model !== undefined) args.push('--model', optionValue('model', options.model));
    args.push(
      '-c',
      `model_provider=${tomlString(CODEX_PROVIDER_ID)}`,
      '-c',
      `model_providers.${CODEX_PROVIDER_ID}=${providerTable(env)}`,
      '-c',
      'analytics.enabled=false',
      '--disable',
      'plugins',
      '--disable',
      'unbounded_connection_retries',
    );
    if (options.resumeSessionId !== undefined) args.push('resume', sessionId(options.resumeSessionId));
    args.push('-');
    return args;
  },

  homeFiles(options: AgentRunOptions): HomeFile[] {
    if (options.systemPrompt === undefined || options.systemPrompt.trim() === '') return [];
    // The file replaces Codex's base instructions (its own system prompt); a relative path is read from ~/.codex.
    return [
      { path: `.codex/${CODEX_SYSTEM_PROMPT_FILE}`, content: options.systemPrompt },
      {
        path: '.codex/config.toml',
        content: `# Written by the service for this run (activities/agents/codex.ts).\nmodel_instructions_file = ${tomlString(CODEX_SYSTEM_PROMPT_FILE)}\n`,
      },
    ];
  },

  parser: (context) => new CodexParser(context),
  sessionTokens: threadTokens,

  outputMapper: () => new CodexOutputMapper(),

  failureHint(resultText: string): string | null {
    return /Missing environment variable: `(OPENAI|CODEX)_API_KEY`|401 Unauthorized|invalid_api_key|Incorrect API key/i.test(resultText)
      ? credentialsHint('OPENAI_API_KEY (ou CODEX_API_KEY; OPENAI_BASE_URL para outro endereço)', 'docs/codex-cli.md')
      : null;
  },
};

function sessionId(value: string): string {
  if (!CODEX_SESSION_ID.test(value))
    throw new AgentOptionsError(`resumeSessionId deve ser um id de thread do Codex (letras, dígitos e "-"), recebido "${value}"`);
  return optionValue('resumeSessionId', value);
}

/** A TOML basic string: `-c` values are parsed as TOML, so every value is quoted, never spliced in bare. */
export function tomlString(value: string): string {
  let quoted = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') quoted += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\u${code.toString(16).padStart(4, '0')}`;
    else quoted += char;
  }
  return `${quoted}"`;
}

/** The provider of every run: the endpoint and key variable from the agent's environment, HTTP streaming, bounded retries. */
function providerTable(env: Readonly<Record<string, string>>): string {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new AgentOptionsError(`OPENAI_BASE_URL deve ser uma URL http(s), recebido "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AgentOptionsError(`OPENAI_BASE_URL deve ser uma URL http(s), recebido "${baseUrl}"`);
  // The key is never in the arguments: the provider names the variable Codex reads it from.
  const envKey = env.CODEX_API_KEY !== undefined && env.CODEX_API_KEY !== '' ? 'CODEX_API_KEY' : 'OPENAI_API_KEY';
  const retries = maxRetries(env.CODEX_MAX_RETRIES);
  const fields = [
    `name = ${tomlString('OpenAI (orchestrator)')}`,
    `base_url = ${tomlString(baseUrl.replace(/\/+$/, ''))}`,
    `env_key = ${tomlString(envKey)}`,
    `wire_api = ${tomlString('responses')}`,
    'supports_websockets = false',
    `request_max_retries = ${retries}`,
    `stream_max_retries = ${retries}`,
  ];
  return `{ ${fields.join(', ')} }`;
}

function maxRetries(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return CODEX_DEFAULT_MAX_RETRIES;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0 || count > CODEX_MAX_RETRIES_LIMIT) {
    throw new AgentOptionsError(`CODEX_MAX_RETRIES deve ser um inteiro de 0 a ${CODEX_MAX_RETRIES_LIMIT}, recebido "${value}"`);
  }
  return count;
}

/**
 * `turn.completed.usage` (input_tokens, cached_input_tokens, cache_write_input_tokens, output_tokens,
 * reasoning_output_tokens) as the service counts tokens: OpenAI's `input_tokens` includes the cached
 * ones (and the cache writes), so `input` is what is left of it; reasoning is part of `output_tokens`.
 * Null when there is no usage or no input or output count.
 */
export function codexTokens(usage: unknown): AgentTokens | null {
  if (!isObject(usage)) return null;
  const input = tokenCount(usage.input_tokens);
  const output = tokenCount(usage.output_tokens);
  if (input === null && output === null) return null;
  const cacheRead = tokenCount(usage.cached_input_tokens) ?? 0;
  const cacheCreation = tokenCount(usage.cache_write_input_tokens) ?? 0;
  return { input: Math.max(0, (input ?? 0) - cacheRead - cacheCreation), output: output ?? 0, cacheRead, cacheCreation };
}

/**
 * The thread's tokens so far, from its rollout file: the last `event_msg` whose payload is a
 * `token_count` holds `info.total_token_usage` (the shape of `turn.completed.usage`). Null when the
 * text has none (a thread killed before its first answer).
 */
export function threadTokens(rolloutEnd: string): AgentTokens | null {
  const lines = rolloutEnd.split('\n');
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const event = parseObject(lines[index]!);
    if (event === null || event.type !== 'event_msg' || !isObject(event.payload)) continue;
    const { payload } = event;
    if (payload.type !== 'token_count' || !isObject(payload.info)) continue;
    return codexTokens(payload.info.total_token_usage);
  }
  return null;
}

/** `total` less what the thread had used before (`before`), each count at least 0. */
function runTokens(total: AgentTokens | null, before: AgentTokens | null): AgentTokens | null {
  if (total === null || before === null) return total;
  return {
    input: Math.max(0, total.input - before.input),
    output: Math.max(0, total.output - before.output),
    cacheRead: Math.max(0, total.cacheRead - before.cacheRead),
    cacheCreation: Math.max(0, total.cacheCreation - before.cacheCreation),
  };
}

/** The items of a Codex thread that are the agent's tools (each a `tool` line; their completion ends a model response). */
const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'collab_tool_call']);

/**
 * Model responses of one run, as far as Codex's stream shows them: it prints items, not API calls. A
 * response begins with the first message or tool after the turn started or after a tool finished
 * (the model is asked again with the tool's outcome). Its count is the result's `turns` and the
 * terminal's `Turno N` lines (as Claude Code's `num_turns` counts its messages).
 */
class ResponseCounter {
  count = 0;
  private open = false;
  private toolFinished = false;
  private readonly tools = new Set<string>();

  /**
   * An `item.started` or `item.completed` line: `closed` is the number of the response it ended (it
   * began another), `newTool` whether it is a tool item seen for the first time (a tool line).
   */
  item(phase: unknown, item: JsonObject | null): { closed: number | null; newTool: boolean } {
    const type = item === null ? null : stringOrNull(item.type);
    if (type === 'agent_message') return { closed: phase === 'item.completed' ? this.output() : null, newTool: false };
    if (type === null || !TOOL_ITEMS.has(type)) return { closed: null, newTool: false };
    const id = stringOrNull(item!.id);
    const newTool = id === null || !this.tools.has(id);
    if (id !== null) this.tools.add(id);
    const closed = newTool ? this.output() : null;
    if (phase === 'item.completed' && this.open) this.toolFinished = true;
    return { closed, newTool };
  }

  /** The turn ended: the open response's number, once. */
  close(): number | null {
    if (!this.open) return null;
    this.open = false;
    this.toolFinished = false;
    return this.count;
  }

  private output(): number | null {
    const closed = this.open && this.toolFinished ? this.count : null;
    if (!this.open || this.toolFinished) {
      this.count += 1;
      this.open = true;
      this.toolFinished = false;
    }
    return closed;
  }
}

function itemOf(event: JsonObject): JsonObject | null {
  return isObject(event.item) ? event.item : null;
}

function errorMessage(event: JsonObject): string | null {
  if (isObject(event.error) && typeof event.error.message === 'string') return event.error.message;
  return stringOrNull(event.message);
}

/**
 * One run's `codex exec --json` lines as events (docs/codex-cli.md):
 * - `thread.started` (`thread_id`) → `init` (the session id; model and cwd are not printed);
 * - `item.completed` of an `agent_message` (`text`) → `text`, whole (Codex prints no deltas);
 * - `turn.completed` (`usage`) → the `result`: not an error, its text the last agent message, its tokens
 *   the usage, which is the **thread's** total since its first run, less what the resumed thread had
 *   used before (`context.sessionTokensBefore`, from its rollout file: the stream does not say it),
 *   no cost, no duration;
 * - `turn.failed` (`error.message`) → an error `result` with that message;
 * - the output ended without either (killed, or crashed) → an error `result` with the last `error`
 *   event's message (or none).
 * Anything else is `raw`.
 */
export class CodexParser implements LineParser {
  private sessionId: string | null = null;
  private lastMessage: string | null = null;
  private lastError: string | null = null;
  private resulted = false;
  private readonly responses = new ResponseCounter();
  private readonly tokensBefore: AgentTokens | null;

  constructor(context?: ParserContext) {
    this.tokensBefore = context?.sessionTokensBefore ?? null;
  }

  line(line: string): AgentEvent[] {
    const raw: AgentEvent = { kind: 'raw', line };
    const event = parseObject(line);
    if (event === null) return [raw];
    switch (event.type) {
      case 'thread.started': {
        const id = stringOrNull(event.thread_id);
        if (id === null) return [raw];
        this.sessionId = id;
        return [{ kind: 'init', sessionId: id, model: null, cwd: null }];
      }
      case 'item.started':
      case 'item.completed': {
        const item = itemOf(event);
        this.responses.item(event.type, item);
        if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') {
          this.lastMessage = item.text;
          return [{ kind: 'text', text: item.text, sessionId: this.sessionId }];
        }
        return [raw];
      }
      case 'error':
        this.lastError = errorMessage(event) ?? this.lastError;
        return [raw];
      case 'turn.completed':
        if (this.resulted) return [raw];
        this.resulted = true;
        return [this.result(false, 'turn.completed', this.lastMessage, runTokens(codexTokens(event.usage), this.tokensBefore))];
      case 'turn.failed':
        if (this.resulted) return [raw];
        this.resulted = true;
        return [this.result(true, 'turn.failed', errorMessage(event) ?? this.lastError, null)];
      default:
        return [raw];
    }
  }

  end(): AgentEvent[] {
    if (this.resulted) return [];
    this.resulted = true;
    // Ended without the end of its turn (a SIGTERM gives exit 143 and no last line): not a success.
    return [this.result(true, null, this.lastError, null)];
  }

  private result(isError: boolean, subtype: string | null, resultText: string | null, tokens: AgentTokens | null): AgentEvent {
    this.responses.close();
    return {
      kind: 'result',
      isError,
      subtype,
      resultText,
      sessionId: this.sessionId,
      costUsd: null,
      durationMs: null,
      turns: this.responses.count,
      tokens,
    };
  }
}

const TOOL_COMMAND_MAX = 120;
const TOOL_TEXT_MAX = 80;

/** `/bin/bash -lc "<cmd>"` (how Codex prints a command it ran) → `<cmd>`, when the quoting is plain; else as printed. */
export function shownCommand(command: string): string {
  const wrapped = /^(?:\/usr)?(?:\/bin\/)?(?:ba)?sh -lc (.*)$/s.exec(command);
  if (wrapped === null) return command;
  const quoted = wrapped[1]!;
  const single = /^'([^']*)'$/s.exec(quoted);
  if (single !== null) return single[1]!;
  const double = /^"((?:[^"\\]|\\.)*)"$/s.exec(quoted);
  if (double !== null) return double[1]!.replace(/\\([\\"$`])/g, '$1');
  return command;
}

/** A tool item as a terminal line: `Shell: <command>`, `Patch: <kind> <path>, ...`, `<server>.<tool>`, `WebSearch: <query>`, `Agent: <prompt>`. */
function toolLine(item: JsonObject): OutputChunk | null {
  const line = (toolName: string, detail: string | null): OutputChunk => ({
    type: 'tool',
    toolName,
    content: detail === null || detail.trim() === '' ? toolName : `${toolName}: ${detail}`,
  });
  switch (item.type) {
    case 'command_execution':
      return line('Shell', typeof item.command === 'string' ? clip(shownCommand(item.command), TOOL_COMMAND_MAX) : null);
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : [];
      const detail = changes.map((change) => `${String(change.kind)} ${String(change.path)}`).join(', ');
      return line('Patch', clip(detail, TOOL_COMMAND_MAX));
    }
    case 'mcp_tool_call':
      return line(`${String(item.server)}.${String(item.tool)}`, null);
    case 'web_search':
      return line('WebSearch', typeof item.query === 'string' ? clip(item.query, TOOL_TEXT_MAX) : null);
    case 'collab_tool_call':
      return line('Agent', typeof item.prompt === 'string' ? clip(item.prompt, TOOL_TEXT_MAX) : null);
    default:
      return null;
  }
}

/**
 * `codex exec --json` as terminal lines (contract 4.4; what 0.169.0 prints: docs/codex-cli.md):
 * - `tool`: one per tool item when it starts (`item.started`; at its `item.completed` when it never
 *   started): a command (`Shell: <command>`), a patch, an MCP tool, a web search, a sub-agent;
 * - `chunk`: each agent message, whole when it is completed (Codex prints no deltas); a stdout line
 *   that is not JSON;
 * - `turn`: "Turno N" when a model response ends: at the next message or tool after a tool finished,
 *   and at the end of the turn (N counts as the result's `turns`);
 * - `system`: an `error` event's message (also "Reconnecting…"), an `error` item (a warning), the
 *   `turn.failed` message when no `error` event said it already, and the summary at the end of the turn
 *   ("Resultado: N turnos | sessão: <8 chars>...": Codex reports no cost and no duration);
 * - `stderr`: each non-empty line of standard error.
 * A command's output is not a line (as Claude Code's tool results are not).
 */
export class CodexOutputMapper implements OutputMapper {
  private sessionId: string | null = null;
  private lastSystem: string | null = null;
  private ended = false;
  private readonly responses = new ResponseCounter();

  stdout(line: string): OutputChunk[] {
    const event = parseObject(line);
    if (event === null) return line.trim() === '' ? [] : [{ type: 'chunk', content: line.trim() }];
    switch (event.type) {
      case 'thread.started':
        this.sessionId = stringOrNull(event.thread_id) ?? this.sessionId;
        return [];
      case 'item.started':
      case 'item.completed':
        return this.item(event.type, itemOf(event));
      case 'error':
        return this.system(errorMessage(event));
      case 'turn.completed':
        return this.turnEnd();
      case 'turn.failed':
        return [...this.turnLine(this.responses.close()), ...this.system(errorMessage(event)), ...this.turnEnd()];
      default:
        return [];
    }
  }

  stderr(line: string): OutputChunk[] {
    return stderrChunk(line);
  }

  end(): OutputChunk[] {
    return this.turnLine(this.responses.close());
  }

  private item(phase: 'item.started' | 'item.completed', item: JsonObject | null): OutputChunk[] {
    if (item === null) return [];
    const { closed, newTool } = this.responses.item(phase, item);
    const chunks = this.turnLine(closed);
    if (item.type === 'agent_message' && phase === 'item.completed' && typeof item.text === 'string' && item.text.trim() !== '') {
      chunks.push({ type: 'chunk', content: item.text.trim() });
    }
    if (item.type === 'error' && phase === 'item.completed') chunks.push(...this.system(stringOrNull(item.message)));
    const tool = newTool ? toolLine(item) : null;
    if (tool !== null) chunks.push(tool);
    return chunks;
  }

  private system(message: string | null): OutputChunk[] {
    const content = message?.trim() ?? '';
    // turn.failed repeats the error event just before it.
    if (content === '' || content === this.lastSystem) return [];
    this.lastSystem = content;
    return [{ type: 'system', content }];
  }

  private turnLine(turn: number | null): OutputChunk[] {
    return turn === null ? [] : [{ type: 'turn', content: `Turno ${turn}`, turn }];
  }

  private turnEnd(): OutputChunk[] {
    const chunks = this.turnLine(this.responses.close());
    if (this.ended) return chunks;
    this.ended = true;
    const parts = [`${this.responses.count} turnos`];
    if (this.sessionId !== null) parts.push(`sessão: ${this.sessionId.slice(0, 8)}...`);
    chunks.push({ type: 'system', content: `Resultado: ${parts.join(' | ')}` });
    return chunks;
  }
}
