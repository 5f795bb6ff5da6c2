import { AgentOptionsError, type AgentCli, type AgentEvent } from '../../activities/agents/agent-cli';
import { claudeCode } from '../../activities/agents/claude-code';
import { codexCli } from '../../activities/agents/codex';
import { geminiCli } from '../../activities/agents/gemini';
import { AGENT_CLIS, type AgentCliName } from '../../domain/agent-clis';
import { AGENT_MODEL_SECRETS } from '../../lib/secret-files';

/**
 * What every adapter owes the runner (docs/agent-process.md, "The adapter contract"; docs/agent-clis.md,
 * "Adding the next CLI"): a new CLI's adapter is listed here and must pass all of it.
 */

const ADAPTERS: Array<[AgentCliName, AgentCli]> = [
  ['claude-code', claudeCode],
  ['codex', codexCli],
  ['gemini', geminiCli],
];

/** The model key each CLI reads (lib/secret-files.ts): it must reach that CLI's runs and no other's. */
const OWN_KEYS: Record<AgentCliName, string[]> = {
  'claude-code': ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
  codex: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  gemini: ['GEMINI_API_KEY'],
};

const PROMPT = 'Escreva o relatório. -- --model x; rm -rf /';
const ENV = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };

/** Lines an upgrade or a broken pipe may print: none may make a parser throw. */
const ODD_LINES = [
  '',
  'plain text',
  '{',
  '[]',
  'null',
  '42',
  '{"type":null}',
  '{"type":"result"}',
  '{"type":"turn.completed","usage":"x"}',
  '\u0000',
];

describe.each(ADAPTERS)('the %s adapter', (name, cli) => {
  const capabilities = AGENT_CLIS[name];

  test('is named as its CLI and takes the permission words the capability table lists, with the same default', () => {
    expect(cli.name).toBe(name);
    expect([...cli.permissionModes].sort()).toEqual([...capabilities.permissionModes].sort());
    expect(cli.defaultPermissionMode).toBe(capabilities.defaultPermissionMode);
  });

  test("keeps its own model keys in the agent's environment and no other CLI's", () => {
    const keeps = (key: string) => cli.envPrefixes.some((prefix) => key.startsWith(prefix));
    for (const key of OWN_KEYS[name]) expect([key, keeps(key)]).toEqual([key, true]);
    const others = AGENT_MODEL_SECRETS.filter((key) => !OWN_KEYS[name].includes(key));
    expect(others.filter(keeps)).toEqual([]);
  });

  test('never puts the prompt in the argument list (it goes to standard input)', () => {
    const args = cli.buildArgs({ prompt: PROMPT, maxTurns: 0 }, ENV);
    expect(args.some((arg) => arg.includes('Escreva o relatório'))).toBe(false);
  });

  test('refuses a model or a session id the CLI would read as an option', () => {
    expect(() => cli.buildArgs({ prompt: PROMPT, maxTurns: 0, model: '--help' }, ENV)).toThrow(AgentOptionsError);
    expect(() => cli.buildArgs({ prompt: PROMPT, maxTurns: 0, resumeSessionId: '--last' }, ENV)).toThrow(AgentOptionsError);
  });

  test('refuses what its capabilities say it cannot honour, and takes what they say it can', () => {
    const tools = () => cli.buildArgs({ prompt: PROMPT, maxTurns: 0, allowedTools: ['Read'] }, ENV);
    if (capabilities.allowedTools) expect(tools).not.toThrow();
    else expect(tools).toThrow(AgentOptionsError);
    if (capabilities.turnLimit) expect(() => cli.buildArgs({ prompt: PROMPT, maxTurns: 3 }, ENV)).not.toThrow();
    for (const mode of capabilities.permissionModes)
      expect(() => cli.buildArgs({ prompt: PROMPT, maxTurns: 0, permissionMode: mode }, ENV)).not.toThrow();
  });

  test('writes its files only at plain paths below HOME', () => {
    const files = cli.homeFiles?.({ prompt: PROMPT, maxTurns: 0, systemPrompt: 'Seja breve.' }, ENV) ?? [];
    for (const file of files) {
      expect(file.path.split('/').every((part) => /^[A-Za-z0-9._-]+$/.test(part) && part !== '.' && part !== '..')).toBe(true);
    }
  });

  test('recognises no session file for an id that tries to leave its directory', () => {
    for (const id of ['../x', '', 'a/b']) expect(cli.sessions.matches(`${id}.jsonl`, id)).toBe(false);
    expect(cli.sessions.depth).toBeGreaterThanOrEqual(1);
  });

  test('parses any line without throwing, a fresh parser per run', () => {
    const parser = cli.parser();
    const events: AgentEvent[] = [];
    for (const line of ODD_LINES) events.push(...parser.line(line));
    events.push(...parser.end());
    for (const event of events) expect(['init', 'text', 'result', 'raw']).toContain(event.kind);
    expect(cli.parser()).not.toBe(parser);
    const mapper = cli.outputMapper();
    for (const line of ODD_LINES) expect(Array.isArray(mapper.stdout(line))).toBe(true);
    expect(Array.isArray(mapper.end())).toBe(true);
  });
});
