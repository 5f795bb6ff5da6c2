/**
 * The coding-agent CLIs an agent may run (its `config.cli`; docs/agents.md, "Which CLI an agent
 * runs"), and what each can honour of the agent's settings: the table the service checks an agent
 * against when it is saved (services/agents/cli-settings.ts) and the adapters (activities/agents/)
 * follow at run time. Data, with why each entry is what it is.
 */

export const AGENT_CLI_NAMES = ['claude-code', 'codex', 'gemini'] as const;
export type AgentCliName = (typeof AGENT_CLI_NAMES)[number];

/** What an agent runs when it says nothing: every agent stored before the choice existed ran Claude Code. */
export const DEFAULT_AGENT_CLI: AgentCliName = 'claude-code';

export interface AgentCliCapabilities {
  /** The CLI's name for people (reports, messages). */
  readonly label: string;
  /** Honours `maxTurns` > 0 (a turn limit that stops the run). */
  readonly turnLimit: boolean;
  /** Honours a non-empty `allowedTools` (tool names it allows without asking). */
  readonly allowedTools: boolean;
  /** Honours `systemPrompt` (the agent's instructions as the system prompt). */
  readonly systemPrompt: boolean;
  /** Its own permission words an agent may choose (`permissionMode`; '' is always accepted: the default below). */
  readonly permissionModes: readonly string[];
  /** What '' means at run time: nobody is there to answer a permission prompt. */
  readonly defaultPermissionMode: string;
  /** Its final event reports the run's cost in USD (else the cost is computed from the tokens, or unknown). */
  readonly costReported: boolean;
  /** Streams the answer's text as it is written (else it comes as whole messages). */
  readonly liveDeltas: boolean;
  /** Resumes a session by id (the panel's continue). */
  readonly resume: boolean;
  /** Its model API serves Claude models: the panel's model list and the settings' default model (a Claude one) apply to it. */
  readonly claudeModels: boolean;
}

export const AGENT_CLIS: Readonly<Record<AgentCliName, AgentCliCapabilities>> = {
  'claude-code': {
    label: 'Claude Code',
    // `--max-turns`: the run stops at the limit.
    turnLimit: true,
    // `--allowedTools`: permission rules by tool name (Bash(git:*), Read).
    allowedTools: true,
    // `--system-prompt=<text>` replaces its own.
    systemPrompt: true,
    // Its `--permission-mode` values, as the panel lists them.
    permissionModes: ['default', 'acceptEdits', 'bypassPermissions', 'plan'],
    // Headless: a prompt nobody answers would stop the run; the pool user is the sandbox (docs/agent-process.md).
    defaultPermissionMode: 'bypassPermissions',
    // The `result` event's `total_cost_usd`.
    costReported: true,
    // stream-json with partial messages: text deltas.
    liveDeltas: true,
    // `--resume <session id>`.
    resume: true,
    // Anthropic's API: the panel's models are its models.
    claudeModels: true,
  },
  codex: {
    label: 'OpenAI Codex CLI',
    // `codex exec` has no turn limit: it works until the model stops.
    turnLimit: false,
    // No allow-list by tool name: its sandbox decides what a command may touch.
    allowedTools: false,
    // `model_instructions_file` in the run's config.toml.
    systemPrompt: true,
    // Its `--sandbox` values (approval policy `never`: nothing is asked, a command outside the sandbox fails).
    permissionModes: ['read-only', 'workspace-write', 'danger-full-access'],
    // Headless with no approvals, as Claude Code's bypassPermissions: the pool user is the sandbox.
    defaultPermissionMode: 'danger-full-access',
    // `turn.completed` has tokens, no cost.
    costReported: false,
    // Whole messages (`item.completed`), no deltas.
    liveDeltas: false,
    // `codex exec resume <thread id>`, from any directory.
    resume: true,
    // An OpenAI Responses API: Claude models are not served there.
    claudeModels: false,
  },
  gemini: {
    label: 'Google Gemini CLI',
    // `model.maxSessionTurns` in its settings: at the limit the run ends with FatalTurnLimitedError (exit
    // 53), an error as Claude Code's `error_max_turns` result is.
    turnLimit: true,
    // Its tool names are not Claude Code's; what runs is chosen by its approval mode.
    allowedTools: false,
    // `~/.gemini/GEMINI.md` in the run's HOME, added to its own system prompt.
    systemPrompt: true,
    // Its `--approval-mode` values; all run headless (a tool the mode would ask about is not offered).
    permissionModes: ['default', 'auto_edit', 'yolo', 'plan'],
    // Every tool, nothing asked: as Claude Code's bypassPermissions.
    defaultPermissionMode: 'yolo',
    // stream-json's `result` has tokens, no cost.
    costReported: false,
    // stream-json `message` events with `delta: true`.
    liveDeltas: true,
    // `--resume <session id>`, from the same working directory only.
    resume: true,
    // Google's Gemini API: Claude models are not served there.
    claudeModels: false,
  },
};

/** Claude model names: the panel's list (`claude-sonnet-4-6`, ...) and Claude Code's aliases. */
const CLAUDE_MODEL = /^(?:claude-|(?:sonnet|opus|haiku)$)/i;

export function isClaudeModel(model: string): boolean {
  return CLAUDE_MODEL.test(model);
}

/**
 * The model a run of the agent records and is given: the agent's own, else the settings' default
 * model for a CLI that takes Claude models (the settings' list is the panel's, Claude's), else ''
 * (the CLI's own default: the settings' Claude model would not be served to it).
 */
export function runModelOf(agent: { cli: AgentCliName; model: string | null }, settingsModel: string): string {
  return agent.model ?? (AGENT_CLIS[agent.cli].claudeModels ? settingsModel : '');
}
