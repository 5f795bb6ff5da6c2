import { AgentOptionsError, type AgentRunOptions } from '../../activities/agents/agent-cli';
import { geminiCli, geminiTokens } from '../../activities/agents/gemini';
import { cliStreams } from '../support/cli-streams';
import { geminiScenarioReply, shellOutputOf } from '../support/stand-in-model/gemini';

/**
 * The Gemini CLI adapter (activities/agents/gemini.ts) over what the pinned @google/gemini-cli 0.61.0
 * really printed against the stand-in model (test/fixtures/cli-streams/gemini/, docs/gemini-cli.md).
 */

const { captured, parseAll, mapAll, initField } = cliStreams(geminiCli);
/** The session id of a captured stream's init line. */
const sessionOf = (name: string): string => initField(name, 'session_id');

const run = (options: Partial<AgentRunOptions> = {}): AgentRunOptions => ({ prompt: 'do it', maxTurns: 0, ...options });
const SESSION = '8d1de01b-d338-49c6-826c-bea5ff9b74bb';

describe('Gemini CLI adapter: argument list', () => {
  it('runs headless with stream-json, --skip-trust and the yolo approval mode by default', () => {
    expect(geminiCli.buildArgs(run(), {})).toEqual(['--output-format', 'stream-json', '--skip-trust', '--approval-mode', 'yolo']);
    expect(geminiCli.defaultPermissionMode).toBe('yolo');
    expect(geminiCli.permissionModes).toEqual(['yolo', 'auto_edit', 'default', 'plan']);
  });

  it('adds the model, the chosen approval mode and --resume with the session id', () => {
    expect(geminiCli.buildArgs(run({ model: 'gemini-2.5-pro', permissionMode: 'auto_edit', resumeSessionId: SESSION }), {})).toEqual([
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      'auto_edit',
      '-m',
      'gemini-2.5-pro',
      '--resume',
      SESSION,
    ]);
  });

  it('never puts the prompt, the turn limit or the system prompt in the argument list', () => {
    const args = geminiCli.buildArgs(run({ prompt: 'secret task', maxTurns: 7, systemPrompt: '- Be brief.' }), {});
    expect(args.join(' ')).not.toMatch(/secret task|7|Be brief/);
  });

  it.each([
    [
      'an unknown approval mode',
      { permissionMode: 'bypassPermissions' },
      /permissionMode deve ser um destes: yolo, auto_edit, default, plan; recebido bypassPermissions/,
    ],
    ['allowed tools (Claude Code names)', { allowedTools: ['Bash'] }, /não aceita allowedTools/],
    ['a model read as an option', { model: '--yolo' }, /model não pode ser vazio nem começar com "-"/],
    ['an empty model', { model: ' ' }, /model não pode ser vazio/],
    ['`latest` for a session (another session)', { resumeSessionId: 'latest' }, /resumeSessionId deve ser um id de sessão do Gemini CLI/],
    ['an index for a session (another session)', { resumeSessionId: '3' }, /resumeSessionId deve ser um id de sessão do Gemini CLI/],
    ['a negative turn limit', { maxTurns: -1 }, /maxTurns deve ser um inteiro não negativo/],
  ])('refuses %s before the run (AgentOptionsError)', (_what, options, message) => {
    const build = () => geminiCli.buildArgs(run(options), {});
    expect(build).toThrow(AgentOptionsError);
    expect(build).toThrow(message);
  });

  it('takes an empty allowedTools list (what the panel sends) as none', () => {
    expect(geminiCli.buildArgs(run({ allowedTools: [] }), {})).toContain('yolo');
  });
});

describe('Gemini CLI adapter: files in the run’s HOME', () => {
  const settingsOf = (options: Partial<AgentRunOptions>, env: Record<string, string> = {}) => {
    const files = geminiCli.homeFiles!(run(options), env);
    const settings = files.find((file) => file.path === '.gemini/settings.json');
    return { files, settings: JSON.parse(settings!.content) as Record<string, unknown> };
  };

  it('writes settings with the API key auth type, no statistics, telemetry, updates, retries, session clean-up or project .env', () => {
    const { files, settings } = settingsOf({});
    expect(files.map((file) => file.path)).toEqual(['.gemini/settings.json']);
    expect(settings).toEqual({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1, sessionRetention: { enabled: false } },
      ui: { showCompatibilityWarnings: false },
      tools: { useRipgrep: false },
      advanced: { ignoreLocalEnv: true },
    });
  });

  it('sets the turn limit as maxSessionTurns, none for 0', () => {
    expect(settingsOf({ maxTurns: 3 }).settings.model).toEqual({ maxSessionTurns: 3 });
    expect(settingsOf({ maxTurns: 0 }).settings.model).toBeUndefined();
  });

  it('takes the attempts per model call from GEMINI_MAX_ATTEMPTS (1 to 10), refusing anything else', () => {
    expect(settingsOf({}, { GEMINI_MAX_ATTEMPTS: '4' }).settings.general).toMatchObject({ maxAttempts: 4 });
    for (const value of ['0', '11', 'two', '']) {
      expect(() => settingsOf({}, { GEMINI_MAX_ATTEMPTS: value })).toThrow(AgentOptionsError);
    }
  });

  it('writes the system prompt as the global context file ~/.gemini/GEMINI.md, ending with a newline', () => {
    const { files } = settingsOf({ systemPrompt: '- Be brief.\n- Answer in Portuguese.' });
    expect(files.find((file) => file.path === '.gemini/GEMINI.md')).toEqual({
      path: '.gemini/GEMINI.md',
      content: '- Be brief.\n- Answer in Portuguese.\n',
    });
    expect(() => settingsOf({ systemPrompt: '  ' })).toThrow(AgentOptionsError);
  });
});

describe('Gemini CLI adapter: sessions', () => {
  it('finds a session’s file two directories below ~/.gemini/tmp by the first 8 characters of its id', () => {
    const { sessions } = geminiCli;
    expect(sessions.dir).toEqual(['.gemini', 'tmp']);
    expect(sessions.depth).toBe(2);
    expect(sessions.matches('session-2026-11-28T15-38-8d1de01b.jsonl', SESSION)).toBe(true);
    expect(sessions.matches('session-2026-11-28T15-38-8d1de01b.json', SESSION)).toBe(true);
    expect(sessions.matches('session-2026-11-28T15-38-05daa945.jsonl', SESSION)).toBe(false);
    expect(sessions.matches('.project_root', SESSION)).toBe(false);
    expect(sessions.matches('logs-8d1de01b.jsonl', SESSION)).toBe(false);
    // An id that is not a UUID names no session (`latest`, an index, a path).
    expect(sessions.matches('session-2026-11-28T15-38-latest.jsonl', 'latest')).toBe(false);
    expect(sessions.matches('session-x-../../x.jsonl', '../../x')).toBe(false);
  });
});

/**
 * What the parser and the mapper rely on in each captured stream: a test that fails naming the
 * event and its field when an upgrade of the CLI changes them (recapture: docs/gemini-cli.md).
 */
const RELIED_ON: Array<{ type: string; where?: Record<string, unknown>; fields: Record<string, string> }> = [
  { type: 'init', fields: { session_id: 'string', model: 'string', timestamp: 'string' } },
  { type: 'message', where: { role: 'assistant' }, fields: { content: 'string', delta: 'boolean' } },
  { type: 'tool_use', fields: { tool_name: 'string', parameters: 'object' } },
  { type: 'tool_result', fields: { tool_id: 'string', status: 'string' } },
  { type: 'result', where: { status: 'success' }, fields: { stats: 'object', timestamp: 'string' } },
  { type: 'result', where: { status: 'error' }, fields: { error: 'object', stats: 'object' } },
];
const STATS_FIELDS = ['total_tokens', 'input_tokens', 'output_tokens', 'cached', 'input', 'duration_ms'];

/** What a stream's lines lack of RELIED_ON, as "<event>.<field>: <what>". */
function missingIn(lines: string[]): string[] {
  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const missing: string[] = [];
  for (const rule of RELIED_ON) {
    const where = Object.entries(rule.where ?? {}).map(([key, value]) => `${key}=${String(value)}`);
    const name = where.length === 0 ? rule.type : `${rule.type}(${where.join(',')})`;
    const matching = events.filter(
      (event) => event.type === rule.type && Object.entries(rule.where ?? {}).every(([key, value]) => event[key] === value),
    );
    for (const event of matching) {
      for (const [field, type] of Object.entries(rule.fields)) {
        const value = event[field];
        const actual = value === null ? 'null' : typeof value;
        if (actual !== type) missing.push(`${name}.${field}: ${type} expected, got ${actual}`);
      }
      if (rule.type === 'result') {
        const stats = (event.stats ?? {}) as Record<string, unknown>;
        for (const field of STATS_FIELDS) if (typeof stats[field] !== 'number') missing.push(`${name}.stats.${field}: number expected`);
      }
      if (rule.type === 'result' && rule.where?.status === 'error') {
        const error = (event.error ?? {}) as Record<string, unknown>;
        if (typeof error.message !== 'string') missing.push(`${name}.error.message: string expected`);
      }
    }
  }
  return missing;
}

describe('the captured streams still hold what the adapter relies on', () => {
  const expected: Record<string, string[]> = {
    text: ['init', 'message', 'result'],
    'write-file': ['init', 'message', 'tool_use', 'tool_result', 'result'],
    'error-401': ['init', 'message', 'result'],
    'max-turns': ['init', 'message', 'tool_use', 'tool_result', 'result'],
    resumed: ['init', 'message', 'result'],
    cancelled: ['init', 'message'],
    tokens: ['init', 'message', 'result'],
    routed: ['init', 'message', 'result'],
  };

  it.each(Object.keys(expected))('%s: every event and field the parser reads, of the kinds it reads', (name) => {
    const lines = captured(name);
    expect([...new Set(lines.map((line) => (JSON.parse(line) as { type: string }).type))]).toEqual(expected[name]);
    expect(missingIn(lines)).toEqual([]);
  });

  it('names the event and the field a changed stream lacks', () => {
    const changed = captured('write-file').map((line) =>
      line.replace('"session_id"', '"sessionId"').replace('"delta":true', '"delta":"yes"').replace('"tool_name"', '"name"'),
    );
    expect(missingIn(changed)).toEqual(
      expect.arrayContaining([
        'init.session_id: string expected, got undefined',
        'message(role=assistant).delta: boolean expected, got string',
        'tool_use.tool_name: string expected, got undefined',
      ]),
    );
  });

  it('has nothing but JSON lines (standard output only)', () => {
    for (const name of Object.keys(expected)) for (const line of captured(name)) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('Gemini CLI adapter: parsing a run’s output', () => {
  it('joins the text deltas into one message; the result has the init’s session, the last message, the stats’ tokens', () => {
    const sessionId = sessionOf('text');
    const events = parseAll(captured('text'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'result']);
    expect(events[0]).toEqual({ kind: 'init', sessionId, model: 'gemini-2.5-flash', cwd: null });
    expect(events[2]).toEqual({ kind: 'text', text: 'Stand-in answer in four parts.', sessionId });
    expect(events[3]).toEqual({
      kind: 'result',
      isError: false,
      subtype: 'success',
      resultText: 'Stand-in answer in four parts.',
      sessionId,
      costUsd: null,
      durationMs: 47,
      turns: 1,
      tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('ends a message at the tool call; counts a turn per answer of the model; the result’s text is the last message', () => {
    const sessionId = sessionOf('write-file');
    const events = parseAll(captured('write-file'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'raw', 'raw', 'text', 'result']);
    expect(events[2]).toEqual({ kind: 'text', text: 'Writing out/hello.txt.', sessionId });
    expect(JSON.parse((events[3] as { line: string }).line)).toMatchObject({
      type: 'tool_use',
      tool_name: 'run_shell_command',
      parameters: { command: "mkdir -p 'out' && printf '%s\\n' 'hello-from-gemini' > 'out/hello.txt' && cat 'out/hello.txt'" },
    });
    expect(JSON.parse((events[4] as { line: string }).line)).toMatchObject({
      type: 'tool_result',
      status: 'success',
      output: 'hello-from-gemini',
    });
    expect(events[5]).toEqual({ kind: 'text', text: 'Wrote the file: hello-from-gemini', sessionId });
    expect(events[6]).toMatchObject({
      kind: 'result',
      isError: false,
      resultText: 'Wrote the file: hello-from-gemini',
      sessionId,
      turns: 2,
      durationMs: 193,
      tokens: { input: 20, output: 51, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('reads an API error result: its message as the text, its type as the subtype, the duration from the timestamps (it says 0)', () => {
    const events = parseAll(captured('error-401'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'result']);
    expect(events[2]).toEqual({
      kind: 'result',
      isError: true,
      subtype: 'unknown',
      resultText:
        '[API Error: {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}]',
      sessionId: sessionOf('error-401'),
      costUsd: null,
      // 15:47:54.556 (init) to 15:47:54.609 (result).
      durationMs: 53,
      turns: 0,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('reads the turn limit’s end as an error result (FatalTurnLimitedError)', () => {
    expect(parseAll(captured('max-turns')).at(-1)).toMatchObject({
      kind: 'result',
      isError: true,
      subtype: 'FatalTurnLimitedError',
      resultText: expect.stringMatching(/^Reached max session turns for this session\./),
      turns: 1,
      tokens: { input: 10, output: 28, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('reads a resumed run: the init has the resumed session’s id, the tokens are this run’s only', () => {
    const events = parseAll(captured('resumed'));
    expect(events[0]).toMatchObject({ kind: 'init', sessionId: sessionOf('resumed') });
    expect(events.at(-1)).toMatchObject({ resultText: 'OK', tokens: { input: 10, output: 1, cacheRead: 0, cacheCreation: 0 }, turns: 1 });
  });

  it('gives an error result at the end of output that had none (a SIGTERM ends it with exit 0 and no result line)', () => {
    const sessionId = sessionOf('cancelled');
    const events = parseAll(captured('cancelled'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'result']);
    expect(events[2]).toEqual({ kind: 'text', text: 'tick 1. tick 2. tick 3. tick 4. tick 5. tick 6. ', sessionId });
    expect(events[3]).toEqual({
      kind: 'result',
      isError: true,
      subtype: null,
      resultText: null,
      sessionId,
      costUsd: null,
      durationMs: null,
      turns: 1,
      tokens: null,
    });
  });

  it('reads the tokens: input without its cached part, cache reads, thinking counted as output', () => {
    // The stand-in's usage: 1234 prompt tokens of which 789 cached, 56 output, 300 thinking (total 1590).
    expect(parseAll(captured('tokens')).at(-1)).toMatchObject({ tokens: { input: 445, output: 356, cacheRead: 789, cacheCreation: 0 } });
    // Without -m: the routing call's tokens (another model) are in the run's.
    expect(parseAll(captured('routed'))).toEqual([
      expect.objectContaining({ kind: 'init', model: 'auto' }),
      expect.objectContaining({ kind: 'raw' }),
      expect.objectContaining({ kind: 'text', text: 'Stand-in answer in four parts.' }),
      expect.objectContaining({ kind: 'result', tokens: { input: 20, output: 22, cacheRead: 0, cacheCreation: 0 } }),
    ]);
    expect(geminiTokens(undefined)).toBeNull();
    expect(geminiTokens({})).toBeNull();
    expect(geminiTokens({ input_tokens: 5, output_tokens: 2 })).toEqual({ input: 5, output: 2, cacheRead: 0, cacheCreation: 0 });
  });

  it('takes an error line’s message for an error result without one, and passes anything else through', () => {
    const parser = geminiCli.parser();
    expect(parser.line('not json')).toEqual([{ kind: 'raw', line: 'not json' }]);
    const error = '{"type":"error","timestamp":"2026-11-28T10:00:01.000Z","severity":"error","message":"Invalid stream: empty answer"}';
    expect(parser.line(error)).toEqual([{ kind: 'raw', line: error }]);
    expect(parser.line('{"type":"result","timestamp":"2026-11-28T10:00:02.000Z","status":"error"}')).toEqual([
      expect.objectContaining({
        kind: 'result',
        isError: true,
        subtype: 'error',
        resultText: 'Invalid stream: empty answer',
        tokens: null,
      }),
    ]);
    expect(parser.end()).toEqual([]);
  });

  it('holds deltas as one message until a line of another kind, and a whole message (no delta) alone', () => {
    const parser = geminiCli.parser();
    const delta = (content: string, extra = '"delta":true') =>
      `{"type":"message","role":"assistant","content":${JSON.stringify(content)},${extra}}`;
    expect(parser.line(delta('Hello '))).toEqual([]);
    expect(parser.line(delta('world'))).toEqual([]);
    expect(parser.line(delta('Whole.', '"delta":false'))).toEqual([{ kind: 'text', text: 'Hello worldWhole.', sessionId: null }]);
    expect(parser.line(delta('Rest'))).toEqual([]);
    expect(parser.end()).toEqual([
      { kind: 'text', text: 'Rest', sessionId: null },
      expect.objectContaining({ kind: 'result', isError: true, turns: 1 }),
    ]);
  });
});

describe('Gemini CLI adapter: output as the terminal lines of the panel (contract 4.4)', () => {
  it('maps a tool-call run: the text, the tool line, a turn per answer, the summary', () => {
    expect(mapAll(captured('write-file'))).toEqual([
      { type: 'chunk', content: 'Writing out/hello.txt.' },
      {
        type: 'tool',
        toolName: 'run_shell_command',
        content: "run_shell_command: mkdir -p 'out' && printf '%s\\n' 'hello-from-gemini' > 'out/hello.txt' && cat 'out/hello.txt'",
      },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'chunk', content: 'Wrote the file: hello-from-gemini' },
      { type: 'turn', content: 'Turno 2', turn: 2 },
      { type: 'system', content: `Resultado: 2 turnos | duração: 0.2s | sessão: ${sessionOf('write-file').slice(0, 8)}...` },
    ]);
  });

  it('shows an API error’s run with no turn, and standard error as stderr lines (the YOLO notice once, any other line as often as it comes)', () => {
    const yolo = 'YOLO mode is enabled. All tool calls will be automatically approved.';
    const retried = 'Attempt 1 failed with status 500. Retrying with backoff...';
    expect(mapAll(captured('error-401'), [yolo, yolo, '  ', retried, retried])).toEqual([
      { type: 'system', content: `Resultado: 0 turnos | sessão: ${sessionOf('error-401').slice(0, 8)}...` },
      { type: 'stderr', content: 'YOLO mode is enabled. All tool calls will be automatically approved.' },
      { type: 'stderr', content: retried },
      { type: 'stderr', content: retried },
    ]);
  });

  it('sends what a cancelled run streamed, and closes its turn at the end', () => {
    expect(mapAll(captured('cancelled'))).toEqual([
      { type: 'chunk', content: 'tick 1. tick 2. tick 3. tick 4. tick 5. tick 6.' },
      { type: 'turn', content: 'Turno 1', turn: 1 },
    ]);
  });

  it('sends each finished line of streamed text at once and holds the rest until the message ends', () => {
    const mapper = geminiCli.outputMapper();
    const delta = (content: string) => `{"type":"message","role":"assistant","content":${JSON.stringify(content)},"delta":true}`;
    expect(mapper.stdout(delta('line 1 of 3\nline 2'))).toEqual([{ type: 'chunk', content: 'line 1 of 3' }]);
    expect(mapper.stdout(delta(' of 3\nline 3 of 3\n'))).toEqual([{ type: 'chunk', content: 'line 2 of 3\nline 3 of 3' }]);
    expect(mapper.stdout(delta('tail'))).toEqual([]);
    expect(mapper.stdout('{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"file_path":"README.md"}}')).toEqual([
      { type: 'chunk', content: 'tail' },
      { type: 'tool', toolName: 'read_file', content: 'read_file: README.md' },
    ]);
    expect(mapper.stdout('{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}')).toEqual([
      { type: 'system', content: 'Loop detected, stopping execution' },
    ]);
    expect(mapper.stdout('plain text line')).toEqual([{ type: 'chunk', content: 'plain text line' }]);
    expect(mapper.end()).toEqual([{ type: 'turn', content: 'Turno 1', turn: 1 }]);
  });

  it('clips a long command and names a tool without parameters by its name', () => {
    const mapper = geminiCli.outputMapper();
    const command = 'x'.repeat(200);
    expect(mapper.stdout(JSON.stringify({ type: 'tool_use', tool_name: 'run_shell_command', parameters: { command } }))).toEqual([
      { type: 'tool', toolName: 'run_shell_command', content: `run_shell_command: ${'x'.repeat(120)}...` },
    ]);
    expect(mapper.stdout(JSON.stringify({ type: 'tool_use', tool_name: 'list_background_processes', parameters: {} }))).toEqual([
      { type: 'tool', toolName: 'list_background_processes', content: 'list_background_processes' },
    ]);
  });
});

describe('gemini failure hints', () => {
  it('tells the operator to set GEMINI_API_KEY when the API refuses the key, not for other errors', () => {
    const hint =
      'o modelo recusou as credenciais: defina GEMINI_API_KEY no ambiente do serviço ou como segredo do agente (docs/gemini-cli.md)';
    const refused = (parseAll(captured('error-401')).at(-1) as { resultText: string }).resultText;
    expect(geminiCli.failureHint!(refused)).toBe(hint);
    expect(geminiCli.failureHint!('[API Error: API key not valid. Please pass a valid API key.]')).toBe(hint);
    expect(geminiCli.failureHint!('[API Error: Resource has been exhausted (e.g. check quota).]')).toBeNull();
  });

  it('names the agent’s turn limit when the run reached it (its own text names settings.json)', () => {
    const limited = (parseAll(captured('max-turns')).at(-1) as { resultText: string }).resultText;
    expect(limited).toMatch(/^Reached max session turns for this session\./);
    expect(geminiCli.failureHint!(limited)).toBe(
      'o limite de turnos do agente (config.maxTurns) foi atingido: aumente-o, ou use 0 para nenhum',
    );
  });

  it('keeps of standard error what a person reads: its attempt and error lines, not the notice, the stack or the report path', () => {
    // The end of standard error of a real 0.61.0 run whose model call got a 500 (agent-clis-runs' failed run).
    const api = '{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}';
    const tail = [
      'YOLO mode is enabled. All tool calls will be automatically approved.',
      'YOLO mode is enabled. All tool calls will be automatically approved.',
      `Attempt 1 failed: ${api}. Max attempts reached`,
      `Error when talking to Gemini API Full report available at: /var/lib/agent-users/agentrun1/.tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-28T18-18-51-631Z.json _ApiError: ${api}`,
      '    at throwErrorIfNotOK (file:///app/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:267833:24)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:104:5)',
      '    at async Turn.run (file:///app/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:333001:24) {',
      '  status: 500',
      '}',
      'Afterwards.',
    ].join('\n');
    expect(geminiCli.failureStderr!(tail)).toBe(
      [`Attempt 1 failed: ${api}. Max attempts reached`, `Error when talking to Gemini API _ApiError: ${api}`, 'Afterwards.'].join('\n'),
    );
    expect(geminiCli.failureStderr!('Error resuming session: No previous sessions found for this project.')).toBe(
      'Error resuming session: No previous sessions found for this project.',
    );
  });
});

describe('the stand-in’s Gemini API (test/support/stand-in-model/gemini.ts)', () => {
  it('takes the shell tool’s output out of what the CLI sends back', () => {
    expect(shellOutputOf('<untrusted_context>\nOutput: hello-from-gemini\nProcess Group PGID: 6522\n</untrusted_context>')).toBe(
      'hello-from-gemini',
    );
    expect(shellOutputOf('Output: two\nlines\nExit Code: 1\nProcess Group PGID: 7')).toBe('two\nlines');
    expect(shellOutputOf('plain')).toBe('plain');
  });

  it('answers write-file with a run_shell_command call, then with the tool’s output', () => {
    const scenario = { name: 'write-file' as const, args: { path: 'out/a.txt', content: 'word' } };
    expect(geminiScenarioReply(scenario, { contents: [{ role: 'user', parts: [{ text: 'stand-in:write-file' }] }] })).toEqual({
      kind: 'call',
      name: 'run_shell_command',
      text: 'Writing out/a.txt.',
      args: { command: "mkdir -p 'out' && printf '%s\\n' 'word' > 'out/a.txt' && cat 'out/a.txt'", description: 'Write out/a.txt' },
    });
    const answered = {
      contents: [
        { role: 'user', parts: [{ text: 'stand-in:write-file' }] },
        { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'run_shell_command', response: { output: 'Output: word\nProcess Group PGID: 1' } } }],
        },
      ],
    };
    expect(geminiScenarioReply(scenario, answered)).toEqual({ kind: 'text', pieces: ['Wrote the ', 'file: word'] });
    expect(geminiScenarioReply({ name: 'write-file', args: { path: '../x', content: 'y' } }, {})).toMatchObject({
      kind: 'error',
      status: 400,
    });
  });
});
