import { credentialsHint } from '../../domain/run-messages';
import type { OutputChunk } from '../../lib/live-output';
import { AgentOptionsError, type AgentCli, type AgentEvent, type AgentTokens, type AgentRunOptions, type OutputMapper } from './agent-cli';
import {
  checkedMaxTurns,
  checkedPermissionMode,
  clip,
  HeldText,
  isObject,
  type JsonObject,
  nonEmpty,
  optionValue,
  parseObject,
  stderrChunk,
  stringOrNull,
  tokenCount,
} from './cli-lines';

/** The values Claude Code's `--permission-mode` accepts; the agents' default is `bypassPermissions` (nobody answers prompts). */
export const CLAUDE_PERMISSION_MODES: readonly string[] = ['default', 'acceptEdits', 'bypassPermissions', 'plan'];
const CLAUDE_DEFAULT_PERMISSION_MODE = 'bypassPermissions';
/** Its sessions: `~/.claude/projects/<cwd, escaped>/<session id>.jsonl`. */
const CLAUDE_SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Claude Code in print mode with streaming JSON output:
 *   claude -p --output-format stream-json --verbose --include-partial-messages [--max-turns N]
 *          --permission-mode MODE [--model MODEL] [--resume SESSION_ID] [--system-prompt=TEXT] [--allowedTools A,B]
 * with the prompt on standard input. Claude Code refuses stream-json in print mode without --verbose.
 * --include-partial-messages adds a `stream_event` line per streamed API event, so the text reaches
 * the terminal as the model writes it (claudeOutputMapper), not once its whole block is done.
 */
export const claudeCode: AgentCli = {
  name: 'claude-code',
  permissionModes: CLAUDE_PERMISSION_MODES,
  defaultPermissionMode: CLAUDE_DEFAULT_PERMISSION_MODE,
  // The CLI's own settings (the API key, the base URL, its options) come from the environment.
  envPrefixes: ['ANTHROPIC_', 'CLAUDE_'],
  sessions: {
    dir: ['.claude', 'projects'],
    depth: 1,
    matches: (fileName, sessionId) => CLAUDE_SESSION_ID.test(sessionId) && fileName === `${sessionId}.jsonl`,
  },

  buildArgs(options: AgentRunOptions): string[] {
    checkedMaxTurns(options.maxTurns);
    const permissionMode = checkedPermissionMode(options.permissionMode, CLAUDE_PERMISSION_MODES, CLAUDE_DEFAULT_PERMISSION_MODE);
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
    // 0 is the panel's "no limit": the CLI's own default applies.
    if (options.maxTurns > 0) args.push('--max-turns', String(options.maxTurns));
    args.push('--permission-mode', permissionMode);
    if (options.model !== undefined) args.push('--model', optionValue('model', options.model));
    if (options.resumeSessionId !== undefined) args.push('--resume', optionValue('resumeSessionId', options.resumeSessionId));
    // One argument `--system-prompt=<text>`: everything after "=" is the value, so a prompt written as a
    // Markdown list ("- Be brief.") is not taken for an option (the real CLI reads it so: agent-config-cli.test.ts).
    if (options.systemPrompt !== undefined) args.push(`--system-prompt=${nonEmpty('systemPrompt', options.systemPrompt)}`);
    if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
      args.push('--allowedTools', options.allowedTools.map((tool) => toolName(tool)).join(','));
    }
    return args;
  },

  // Every line of Claude Code's stream stands alone: its parser keeps nothing between lines.
  parser: () => ({ line: (line) => [parseClaudeLine(line)], end: () => [] }),

  outputMapper: () => new ClaudeOutputMapper(),

  // Without credentials the CLI says "Not logged in · Please run /login", which no service user can do:
  // the agents' HOMEs are emptied at every lease (docs/agent-process.md), only the environment reaches them.
  failureHint(resultText: string): string | null {
    return /not logged in|invalid api key/i.test(resultText)
      ? credentialsHint('ANTHROPIC_API_KEY (ou ANTHROPIC_AUTH_TOKEN)', 'docs/claude-code-cli.md')
      : null;
  },
};

/** Understands one line of Claude Code's standard output (without its newline). Never throws. */
export function parseClaudeLine(line: string): AgentEvent {
  const raw: AgentEvent = { kind: 'raw', line };
  const event = parseObject(line);
  if (event === null) return raw;

  if (event.type === 'system' && event.subtype === 'init' && typeof event.session_id === 'string') {
    return { kind: 'init', sessionId: event.session_id, model: stringOrNull(event.model), cwd: stringOrNull(event.cwd) };
  }
  if (event.type === 'assistant') {
    // A failed API call (401, 429, 529 after retries) comes as a synthetic assistant message holding
    // the error text: the model did not say it; the result event carries it as the error.
    if (event.is_api_error_message === true) return raw;
    const text = assistantText(event.message);
    return text === null ? raw : { kind: 'text', text, sessionId: stringOrNull(event.session_id) };
  }
  if (event.type === 'result') {
    const subtype = stringOrNull(event.subtype);
    return {
      kind: 'result',
      isError: event.is_error === true || (subtype !== null && subtype !== 'success'),
      subtype,
      resultText: resultText(event),
      sessionId: stringOrNull(event.session_id),
      costUsd: numberOrNull(event.total_cost_usd),
      durationMs: numberOrNull(event.duration_ms),
      turns: numberOrNull(event.num_turns),
      tokens: usageTokens(event.usage),
    };
  }
  return raw;
}

// The list goes as one comma-separated value: a comma inside a name would split it into two.
function toolName(value: string): string {
  if (value.includes(',')) throw new AgentOptionsError(`um item de allowedTools não pode conter ",", recebido "${value}"`);
  return optionValue('um item de allowedTools', value.trim());
}

/** The text blocks of an assistant message, joined; null when it holds none (a tool call only). */
function assistantText(message: unknown): string | null {
  if (!isObject(message) || !Array.isArray(message.content)) return null;
  const texts = message.content
    .filter((block): block is JsonObject => isObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string);
  return texts.length === 0 ? null : texts.join('');
}

// Error results of newer Claude Code versions carry `errors` (a list of messages) instead of `result`.
function resultText(event: JsonObject): string | null {
  if (typeof event.result === 'string') return event.result;
  if (Array.isArray(event.errors)) {
    const errors = event.errors.filter((error): error is string => typeof error === 'string');
    if (errors.length > 0) return errors.join('; ');
  }
  return null;
}

/**
 * The result's `usage` (input_tokens, output_tokens, cache_read_input_tokens,
 * cache_creation_input_tokens) as whole non-negative counts; a count the CLI left out is 0 (older
 * versions print only input and output). Null when there is no usage or none of the four counts.
 */
function usageTokens(usage: unknown): AgentTokens | null {
  if (!isObject(usage)) return null;
  const counts = [usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens].map(
    tokenCount,
  );
  if (counts.every((count) => count === null)) return null;
  const [input, output, cacheRead, cacheCreation] = counts.map((count) => count ?? 0) as [number, number, number, number];
  return { input, output, cacheRead, cacheCreation };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

const TOOL_COMMAND_MAX = 120;
const TOOL_TEXT_MAX = 80;

/**
 * Claude Code's stream-json as terminal lines (contract 4.4; what 2.1.331 prints: docs/claude-code-cli.md):
 * - `chunk`: the model's text. Streamed deltas (`stream_event` text_delta) are sent a line at a time,
 *   as soon as the line ends (each `chunk` is a row of the panel's terminal: a row per token would be
 *   unreadable); the rest of a block when it stops. The whole-block `assistant` line that follows is not
 *   repeated; its text is used only for a message that streamed none.
 * - `tool`: one per `tool_use` block of an `assistant` line (the input is whole there, not in the
 *   block's start), "<Tool>: <detail>".
 * - `turn`: "Turno N" once per API message (the CLI prints one `assistant` line per content block, so
 *   one message may give several), when it ends: its `message_stop`, else the next tool result, message
 *   or result. N counts like the result's `num_turns`.
 * - `system`: the `message` of a `system` line, the message of an `error` line, and the result summary.
 * - `stderr`: each non-empty line of standard error.
 * The result's own text is not a line: it is the final message's `data.result`.
 */
export class ClaudeOutputMapper implements OutputMapper {
  private turns = 0;
  /** The message whose turn line is not sent yet. */
  private openMessage: string | null = null;
  private readonly streamed = new Set<string>();
  private readonly toolsSent = new Set<string>();
  private readonly text = new HeldText();

  stdout(line: string): OutputChunk[] {
    const event = parseObject(line);
    if (event === null) return line.trim() === '' ? [] : [...this.text.flush(), { type: 'chunk', content: line.trim() }];
    switch (event.type) {
      case 'stream_event':
        return this.streamEvent(event);
      case 'assistant':
        return this.assistant(event);
      case 'user':
        return this.closeTurn();
      case 'system':
        return typeof event.message === 'string' && event.message.trim() !== '' ? [{ type: 'system', content: event.message.trim() }] : [];
      case 'error': {
        const message = isObject(event.error) && typeof event.error.message === 'string' ? event.error.message : event.message;
        return typeof message === 'string' && message.trim() !== ''
          ? [...this.text.flush(), { type: 'system', content: message.trim() }]
          : [];
      }
      case 'result': {
        const summary = resultSummary(event);
        return [...this.closeTurn(), ...(summary === null ? [] : [{ type: 'system' as const, content: summary }])];
      }
      default:
        return [];
    }
  }

  stderr(line: string): OutputChunk[] {
    return stderrChunk(line);
  }

  end(): OutputChunk[] {
    return this.closeTurn();
  }

  private streamEvent(line: JsonObject): OutputChunk[] {
    const event = line.event;
    if (!isObject(event)) return [];
    const messageId = stringOrNull(line.api_message_id);
    if (event.type === 'message_start') {
      const id = isObject(event.message) ? stringOrNull(event.message.id) : null;
      return id !== null && id === this.openMessage ? [] : this.closeTurn();
    }
    if (
      event.type === 'content_block_delta' &&
      isObject(event.delta) &&
      event.delta.type === 'text_delta' &&
      typeof event.delta.text === 'string'
    ) {
      if (messageId !== null) this.streamed.add(messageId);
      return this.text.add(event.delta.text);
    }
    if (event.type === 'content_block_stop') return this.text.flush();
    if (event.type === 'message_stop') return messageId !== null && messageId === this.openMessage ? this.closeTurn() : this.text.flush();
    return [];
  }

  private assistant(event: JsonObject): OutputChunk[] {
    // A failed API call printed as a message: the result carries the error (see parseLine).
    if (event.is_api_error_message === true) return this.text.flush();
    const message = isObject(event.message) ? event.message : {};
    const id = stringOrNull(message.id);
    const chunks = id !== this.openMessage ? this.closeTurn() : [];
    this.openMessage = id ?? `unnamed-${this.turns + 1}`;
    const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
    for (const block of blocks) {
      if (block.type !== 'tool_use' || typeof block.name !== 'string') continue;
      const toolId = stringOrNull(block.id);
      if (toolId !== null && this.toolsSent.has(toolId)) continue;
      if (toolId !== null) this.toolsSent.add(toolId);
      const detail = toolDetail(block.input);
      chunks.push({ type: 'tool', toolName: block.name, content: detail === null ? block.name : `${block.name}: ${detail}` });
    }
    if (id === null || !this.streamed.has(id)) {
      const text = assistantText(message)?.trim();
      if (text) chunks.push({ type: 'chunk', content: text });
    }
    return chunks;
  }

  /** The held text, then the open turn's line ("Turno N"), if a turn is open. */
  private closeTurn(): OutputChunk[] {
    const chunks = this.text.flush();
    if (this.openMessage === null) return chunks;
    this.openMessage = null;
    this.turns += 1;
    chunks.push({ type: 'turn', content: `Turno ${this.turns}`, turn: this.turns });
    return chunks;
  }
}

/** The first present of command (120), file_path, pattern, query, path, prompt (80), description (80). */
function toolDetail(input: unknown): string | null {
  if (!isObject(input)) return null;
  const fields: Array<[string, number | null]> = [
    ['command', TOOL_COMMAND_MAX],
    ['file_path', null],
    ['pattern', null],
    ['query', null],
    ['path', null],
    ['prompt', TOOL_TEXT_MAX],
    ['description', TOOL_TEXT_MAX],
  ];
  for (const [name, max] of fields) {
    const value = input[name];
    if (typeof value === 'string' && value.trim() !== '') return max === null ? value : clip(value, max);
  }
  return null;
}

/** "Resultado: N turnos | custo: $x | duração: Ys | sessão: <8 chars>...", each part only when its field is there. */
export function resultSummary(event: JsonObject): string | null {
  const parts: string[] = [];
  const turns = numberOrNull(event.num_turns);
  const cost = numberOrNull(event.total_cost_usd) ?? numberOrNull(event.cost_usd);
  const duration = numberOrNull(event.duration_ms);
  const session = stringOrNull(event.session_id);
  if (turns !== null) parts.push(`${turns} turnos`);
  if (cost !== null) parts.push(`custo: $${cost.toFixed(4)}`);
  if (duration !== null) parts.push(`duração: ${(duration / 1000).toFixed(1)}s`);
  if (session !== null) parts.push(`sessão: ${session.slice(0, 8)}...`);
  return parts.length === 0 ? null : `Resultado: ${parts.join(' | ')}`;
}
