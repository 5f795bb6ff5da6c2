import { AgentOptionsError } from '../../activities/agents/agent-cli';
import { codexCli, codexTokens, shownCommand, threadTokens, tomlString } from '../../activities/agents/codex';
import { cliStreams, sseEvents } from '../support/cli-streams';
import { startStandInModel, type StandInModel } from '../support/stand-in-model';
import {
  commandOutput,
  openaiStandInEnv,
  responsesPromptsOf,
  responsesToolOutputsOf,
  shellToolOf,
} from '../support/stand-in-model/openai-responses';

/**
 * The Codex CLI adapter (activities/agents/codex.ts) over the lines the pinned Codex 0.169.0 printed
 * against the stand-in Responses API (test/fixtures/cli-streams/codex/, docs/codex-cli.md).
 */

const { captured, capturedText, parseAll, mapAll, initField } = cliStreams(codexCli);
const threadOf = (name: string): string => initField(name, 'thread_id');

const PROVIDER = (baseUrl: string, envKey = 'OPENAI_API_KEY', retries = 2) =>
  `model_providers.orchestrator={ name = "OpenAI (orchestrator)", base_url = "${baseUrl}", env_key = "${envKey}", wire_api = "responses", supports_websockets = false, request_max_retries = ${retries}, stream_max_retries = ${retries} }`;
const TAIL = ['-c', 'analytics.enabled=false', '--disable', 'plugins', '--disable', 'unbounded_connection_retries'];

describe('Codex adapter: argument list', () => {
  it('runs exec with JSONL, full access, no approvals, its own provider for OpenAI’s API, and the prompt on stdin', () => {
    expect(codexCli.buildArgs({ prompt: 'Fix the tests', maxTurns: 0 }, { OPENAI_API_KEY: 'sk-x' })).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'danger-full-access',
      '-c',
      'approval_policy="never"',
      '-c',
      'model_provider="orchestrator"',
      '-c',
      PROVIDER('https://api.openai.com/v1'),
      ...TAIL,
      '-',
    ]);
  });

  it('takes the endpoint from OPENAI_BASE_URL, the key variable CODEX_API_KEY when set, the retries from CODEX_MAX_RETRIES; adds model, mode and resume', () => {
    const args = codexCli.buildArgs(
      {
        prompt: 'Go on',
        maxTurns: 0,
        model: 'gpt-5.5',
        permissionMode: 'workspace-write',
        resumeSessionId: '01a222de-1bd4-7821-8b40-784909d59a3d',
      },
      { OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1/', CODEX_API_KEY: 'sk-codex', OPENAI_API_KEY: 'sk-x', CODEX_MAX_RETRIES: '0' },
    );
    expect(args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '-c',
      'approval_policy="never"',
      '--model',
      'gpt-5.5',
      '-c',
      'model_provider="orchestrator"',
      '-c',
      PROVIDER('http://127.0.0.1:4000/v1', 'CODEX_API_KEY', 0),
      ...TAIL,
      'resume',
      '01a222de-1bd4-7821-8b40-784909d59a3d',
      '-',
    ]);
    // The key itself is never an argument.
    expect(args.join(' ')).not.toContain('sk-');
  });

  it('refuses what Codex cannot do or would misread, naming it', () => {
    const build =
      (options: Record<string, unknown>, env: Record<string, string> = {}) =>
      () =>
        codexCli.buildArgs({ prompt: 'p', maxTurns: 0, ...options }, env);
    expect(build({ maxTurns: 5 })).toThrow(
      new AgentOptionsError('o codex não tem limite de turnos: maxTurns deve ser 0 (sem limite), recebido 5'),
    );
    expect(build({ maxTurns: -1 })).toThrow(AgentOptionsError);
    expect(build({ allowedTools: ['Read'] })).toThrow(
      /o codex não limita suas ferramentas por nome: allowedTools deve ser vazio, recebido Read/,
    );
    expect(build({ allowedTools: [] })).not.toThrow();
    expect(build({ permissionMode: 'bypassPermissions' })).toThrow(
      /permissionMode deve ser um destes: danger-full-access, workspace-write, read-only; recebido bypassPermissions/,
    );
    expect(build({ model: '-c' })).toThrow(/model não pode ser vazio nem começar com "-"/);
    expect(build({ resumeSessionId: '--last' })).toThrow(/resumeSessionId não pode ser vazio nem começar com "-"/);
    expect(build({ resumeSessionId: '../x' })).toThrow(/resumeSessionId deve ser um id de thread do Codex/);
    expect(build({ systemPrompt: '  ' })).toThrow(/systemPrompt não pode ser vazio/);
    expect(build({}, { OPENAI_BASE_URL: 'api.openai.com' })).toThrow(/OPENAI_BASE_URL deve ser uma URL http\(s\)/);
    expect(build({}, { OPENAI_BASE_URL: 'file:///etc/passwd' })).toThrow(/OPENAI_BASE_URL deve ser uma URL http\(s\)/);
    expect(build({}, { CODEX_MAX_RETRIES: '99' })).toThrow(/CODEX_MAX_RETRIES deve ser um inteiro de 0 a 5/);
    expect(build({}, { CODEX_HOME: '/srv/codex' })).toThrow(/a variável CODEX_HOME não pode ser definida para o codex/);
  });

  it('quotes every -c value as a TOML string, so an address cannot add settings', () => {
    expect(tomlString('a"b\\c\nd\u007f')).toBe('"a\\"b\\\\c\\u000ad\\u007f"');
    const args = codexCli.buildArgs({ prompt: 'p', maxTurns: 0 }, { OPENAI_BASE_URL: 'http://h/v1?x=", env_key = "HOME' });
    expect(args[10]).toContain('base_url = "http://h/v1?x=\\", env_key = \\"HOME"');
  });

  it('writes the system prompt into the run’s HOME and names it in config.toml (Codex reads it relative to ~/.codex)', () => {
    expect(codexCli.homeFiles!({ prompt: 'p', maxTurns: 0 }, {})).toEqual([]);
    expect(codexCli.homeFiles!({ prompt: 'p', maxTurns: 0, systemPrompt: '- Be brief.' }, {})).toEqual([
      { path: '.codex/system-prompt.md', content: '- Be brief.' },
      {
        path: '.codex/config.toml',
        content: '# Written by the service for this run (activities/agents/codex.ts).\nmodel_instructions_file = "system-prompt.md"\n',
      },
    ]);
    // The system prompt is never an argument.
    expect(codexCli.buildArgs({ prompt: 'p', maxTurns: 0, systemPrompt: '- Be brief.' }, {}).join(' ')).not.toContain('Be brief');
  });

  it('finds a session by its thread id in the dated rollout files', () => {
    const { sessions } = codexCli;
    expect(sessions.dir).toEqual(['.codex', 'sessions']);
    expect(sessions.depth).toBe(3);
    const id = '01a222de-1bd4-7821-8b40-784909d59a3d';
    expect(sessions.matches(`rollout-2026-11-28T15-44-05-${id}.jsonl`, id)).toBe(true);
    expect(sessions.matches(`rollout-2026-11-28T15-44-05-${id}.jsonl.tmp`, id)).toBe(false);
    expect(sessions.matches(`${id}.jsonl`, id)).toBe(false);
    expect(sessions.matches('rollout-x-..jsonl', '.')).toBe(false);
  });

  it('adds what to do to a refused or missing key', () => {
    expect(codexCli.failureHint!('Missing environment variable: `OPENAI_API_KEY`.')).toMatch(
      /defina OPENAI_API_KEY \(ou CODEX_API_KEY; OPENAI_BASE_URL para outro endereço\)/,
    );
    expect(codexCli.failureHint!('unexpected status 401 Unauthorized: Incorrect API key provided')).toMatch(/OPENAI_API_KEY/);
    expect(codexCli.failureHint!('We’re currently experiencing high demand, which may cause temporary errors.')).toBeNull();
  });
});

/**
 * What the parser relies on in each captured stream: a field missing after an upgrade fails here,
 * naming the event and the field, before any run goes wrong.
 */
const RELIED_ON: Record<string, Array<{ event: string; item?: string; fields: string[] }>> = {
  text: [
    { event: 'thread.started', fields: ['thread_id'] },
    { event: 'item.completed', item: 'agent_message', fields: ['item.text'] },
    {
      event: 'turn.completed',
      fields: ['usage.input_tokens', 'usage.cached_input_tokens', 'usage.cache_write_input_tokens', 'usage.output_tokens'],
    },
  ],
  'write-file': [
    { event: 'thread.started', fields: ['thread_id'] },
    { event: 'item.started', item: 'command_execution', fields: ['item.id', 'item.command'] },
    { event: 'item.completed', item: 'command_execution', fields: ['item.id', 'item.command', 'item.exit_code'] },
    { event: 'item.completed', item: 'agent_message', fields: ['item.text'] },
    { event: 'turn.completed', fields: ['usage.input_tokens', 'usage.output_tokens'] },
  ],
  'error-401': [
    { event: 'thread.started', fields: ['thread_id'] },
    { event: 'error', fields: ['message'] },
    { event: 'turn.failed', fields: ['error.message'] },
  ],
  resumed: [
    { event: 'thread.started', fields: ['thread_id'] },
    { event: 'turn.completed', fields: ['usage.input_tokens', 'usage.output_tokens'] },
  ],
};

function field(value: unknown, dotted: string): unknown {
  return dotted
    .split('.')
    .reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), value);
}

/** The first relied-on event or field a stream lacks, as a sentence; null when it has them all. */
function missingInStream(name: string, lines: string[]): string | null {
  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const need of RELIED_ON[name] ?? []) {
    const label = need.item === undefined ? need.event : `${need.event} (${need.item})`;
    const found = events.filter(
      (event) => event.type === need.event && (need.item === undefined || field(event, 'item.type') === need.item),
    );
    if (found.length === 0) return `codex/${name}.jsonl has no "${label}" event`;
    for (const name2 of need.fields) {
      if (!found.some((event) => field(event, name2) !== undefined)) return `codex/${name}.jsonl: "${label}" has no "${name2}"`;
    }
  }
  return null;
}

describe('Codex adapter: what the captured streams of 0.169.0 still hold', () => {
  it.each(Object.keys(RELIED_ON))('%s.jsonl has every event and field the parser relies on', (name) => {
    expect(missingInStream(name, captured(name))).toBeNull();
  });

  it('names the event when a stream lacks it (an upgrade that renamed turn.completed or dropped its usage)', () => {
    const renamed = captured('text').map((line) => line.replace('"turn.completed"', '"turn.done"'));
    expect(missingInStream('text', renamed)).toBe('codex/text.jsonl has no "turn.completed" event');
    const noUsage = captured('text').map((line) => line.replace('"cached_input_tokens"', '"cached_tokens"'));
    expect(missingInStream('text', noUsage)).toBe('codex/text.jsonl: "turn.completed" has no "usage.cached_input_tokens"');
    const noText = captured('write-file').map((line) => line.replace(/"type":"agent_message","text"/g, '"type":"agent_message","content"'));
    expect(missingInStream('write-file', noText)).toBe('codex/write-file.jsonl: "item.completed (agent_message)" has no "item.text"');
  });
});

describe('Codex adapter: parsing a run’s lines', () => {
  it('a text answer: init with the thread id, the message, a result with the usage as tokens and no cost', () => {
    const id = threadOf('text');
    expect(parseAll(captured('text'))).toEqual([
      { kind: 'init', sessionId: id, model: null, cwd: null },
      { kind: 'raw', line: '{"type":"turn.started"}' },
      { kind: 'text', text: 'Stand-in answer in four parts.', sessionId: id },
      {
        kind: 'result',
        isError: false,
        subtype: 'turn.completed',
        resultText: 'Stand-in answer in four parts.',
        sessionId: id,
        costUsd: null,
        durationMs: null,
        turns: 1,
        tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      },
    ]);
  });

  it('a tool call: both messages, the command lines raw, two model responses, the last message as the result', () => {
    const events = parseAll(captured('write-file'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'raw', 'raw', 'text', 'result']);
    expect(events[2]).toMatchObject({ kind: 'text', text: 'Writing out/hello.txt.' });
    expect(events[5]).toMatchObject({ kind: 'text', text: 'Wrote the file: hello-from-codex' });
    expect(events[6]).toEqual({
      kind: 'result',
      isError: false,
      subtype: 'turn.completed',
      resultText: 'Wrote the file: hello-from-codex',
      sessionId: threadOf('write-file'),
      costUsd: null,
      durationMs: null,
      turns: 2,
      // The stand-in's usage of both requests, summed by Codex.
      tokens: { input: 20, output: 39, cacheRead: 0, cacheCreation: 0 },
    });
    // Code mode (the default model's tool set) prints the same items.
    expect(parseAll(captured('write-file-code-mode')).map((event) => event.kind)).toEqual([
      'init',
      'raw',
      'text',
      'raw',
      'raw',
      'text',
      'result',
    ]);
  });

  it('an API error: an error result with the turn.failed message', () => {
    const [, , , result] = parseAll(captured('error-401'));
    expect(result).toMatchObject({
      kind: 'result',
      isError: true,
      subtype: 'turn.failed',
      resultText: expect.stringMatching(
        /^unexpected status 401 Unauthorized: Incorrect API key provided: sk-stand-in, url: http:\/\/127\.0\.0\.1:\d+\/v1\/responses, request id: req_standin_401$/,
      ),
      sessionId: threadOf('error-401'),
      turns: 0,
      tokens: null,
    });
    expect(parseAll(captured('error-500')).at(-1)).toMatchObject({
      isError: true,
      resultText: 'We’re currently experiencing high demand, which may cause temporary errors.',
    });
  });

  it('a resumed thread: the same thread id, and the usage of the whole thread (the earlier run’s included)', () => {
    expect(threadOf('resumed')).toBe(threadOf('text'));
    expect(parseAll(captured('resumed')).at(-1)).toMatchObject({
      kind: 'result',
      isError: false,
      sessionId: threadOf('text'),
      resultText: 'OK',
      // 10 + 10 input, 8 + 1 output: what turn.completed says after a resume (docs/codex-cli.md).
      tokens: { input: 20, output: 9, cacheRead: 0, cacheCreation: 0 },
    });
    expect(threadOf('resumed-after-kill')).toBe(threadOf('killed'));
  });

  it('a resumed thread parsed with what its rollout file said before: the tokens are this run’s', () => {
    const parser = codexCli.parser({ sessionTokensBefore: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 } });
    const events = captured('resumed').flatMap((line) => parser.line(line));
    expect(events.at(-1)).toMatchObject({ kind: 'result', tokens: { input: 10, output: 1, cacheRead: 0, cacheCreation: 0 } });
    // Never below 0 (a file read from another thread's count, a CLI that restarted its count).
    const more = codexCli.parser({ sessionTokensBefore: { input: 50, output: 50, cacheRead: 5, cacheCreation: 5 } });
    expect(
      captured('resumed')
        .flatMap((line) => more.line(line))
        .at(-1),
    ).toMatchObject({
      tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('reads the thread’s tokens so far from the end of its rollout file: the last token_count event', () => {
    // The last lines of a real 0.169.0 rollout file (~/.codex/sessions/...; docs/codex-cli.md).
    const end = capturedText('rollout-end');
    expect(codexCli.sessionTokens!(end)).toEqual({ input: 10, output: 3, cacheRead: 0, cacheCreation: 0 });
    // The last count wins; a cut or foreign line is skipped; no count at all is null.
    const later = end.replace('"total_token_usage":{"input_tokens":10', '"total_token_usage":{"input_tokens":40');
    expect(threadTokens(`${end}${later}{"type":"event_msg","payload":{"type":"token_count"}}\n{"cut`)).toEqual({
      input: 40,
      output: 3,
      cacheRead: 0,
      cacheCreation: 0,
    });
    expect(threadTokens('{"type":"session_meta","payload":{}}\n')).toBeNull();
    expect(threadTokens('')).toBeNull();
  });

  it('a killed run (SIGTERM: no last line): the end gives an error result without text', () => {
    const events = parseAll(captured('killed'));
    expect(events.map((event) => event.kind)).toEqual(['init', 'raw', 'raw', 'result']);
    expect(events[3]).toEqual({
      kind: 'result',
      isError: true,
      subtype: null,
      resultText: null,
      sessionId: threadOf('killed'),
      costUsd: null,
      durationMs: null,
      turns: 1,
      tokens: null,
    });
  });

  it('keeps its state per run, and passes anything else through as raw', () => {
    const first = codexCli.parser();
    first.line(captured('text')[0]!);
    expect(codexCli.parser().end()).toEqual([expect.objectContaining({ kind: 'result', sessionId: null, isError: true })]);
    const parser = codexCli.parser();
    expect(parser.line('not json')).toEqual([{ kind: 'raw', line: 'not json' }]);
    expect(parser.line('{"type":"thread.started"}')).toEqual([{ kind: 'raw', line: '{"type":"thread.started"}' }]);
    expect(parser.line('{"type":"error","message":"Reconnecting... 1/2"}')).toEqual([
      { kind: 'raw', line: '{"type":"error","message":"Reconnecting... 1/2"}' },
    ]);
    // A reconnect that recovers is not an error.
    expect(parser.line('{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}')).toEqual([
      expect.objectContaining({ kind: 'result', isError: false, resultText: null }),
    ]);
    expect(parser.end()).toEqual([]);
  });

  it('counts tokens as the service does: cached input apart from input, counts left out as 0', () => {
    expect(
      codexTokens({
        input_tokens: 1000,
        cached_input_tokens: 600,
        cache_write_input_tokens: 100,
        output_tokens: 50,
        reasoning_output_tokens: 20,
      }),
    ).toEqual({
      input: 300,
      output: 50,
      cacheRead: 600,
      cacheCreation: 100,
    });
    expect(codexTokens({ input_tokens: 7, output_tokens: 3 })).toEqual({ input: 7, output: 3, cacheRead: 0, cacheCreation: 0 });
    expect(codexTokens({})).toBeNull();
    expect(codexTokens(undefined)).toBeNull();
  });
});

describe('Codex adapter: output as the terminal lines of the panel (contract 4.4)', () => {
  it('a tool-call run: the preamble, the command as run, a turn per model response, the summary', () => {
    expect(mapAll(captured('write-file'))).toEqual([
      { type: 'chunk', content: 'Writing out/hello.txt.' },
      {
        type: 'tool',
        toolName: 'Shell',
        content: "Shell: mkdir -p 'out' && printf '%s\\n' 'hello-from-codex' > 'out/hello.txt' && cat 'out/hello.txt'",
      },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'chunk', content: 'Wrote the file: hello-from-codex' },
      { type: 'turn', content: 'Turno 2', turn: 2 },
      { type: 'system', content: `Resultado: 2 turnos | sessão: ${threadOf('write-file').slice(0, 8)}...` },
    ]);
  });

  it('a text answer, an API error, a killed run', () => {
    expect(mapAll(captured('text'))).toEqual([
      { type: 'chunk', content: 'Stand-in answer in four parts.' },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'system', content: `Resultado: 1 turnos | sessão: ${threadOf('text').slice(0, 8)}...` },
    ]);
    // The error event and turn.failed say the same: one line.
    expect(mapAll(captured('error-401'))).toEqual([
      { type: 'system', content: expect.stringMatching(/^unexpected status 401 Unauthorized: /) },
      { type: 'system', content: `Resultado: 0 turnos | sessão: ${threadOf('error-401').slice(0, 8)}...` },
    ]);
    expect(mapAll(captured('killed'))).toEqual([
      { type: 'tool', toolName: 'Shell', content: 'Shell: echo $$ > sleeper.pid && sleep 300' },
      { type: 'turn', content: 'Turno 1', turn: 1 },
    ]);
  });

  it('standard error, non-JSON lines, warnings as error items, other tools', () => {
    const mapper = codexCli.outputMapper();
    expect(mapper.stderr('  WARNING: proceeding  ')).toEqual([{ type: 'stderr', content: 'WARNING: proceeding' }]);
    expect(mapper.stderr('')).toEqual([]);
    expect(mapper.stdout('plain text')).toEqual([{ type: 'chunk', content: 'plain text' }]);
    expect(
      mapper.stdout('{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-x` not found."}}'),
    ).toEqual([{ type: 'system', content: 'Model metadata for `gpt-x` not found.' }]);
    expect(
      mapper.stdout(
        '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"a.txt","kind":"add"},{"path":"b.txt","kind":"update"}],"status":"completed"}}',
      ),
    ).toEqual([{ type: 'tool', toolName: 'Patch', content: 'Patch: add a.txt, update b.txt' }]);
    expect(mapper.stdout('{"type":"item.started","item":{"id":"item_2","type":"web_search","query":"codex exec"}}')).toEqual([
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'tool', toolName: 'WebSearch', content: 'WebSearch: codex exec' },
    ]);
  });

  it('shows the command without the shell wrapper when its quoting is plain', () => {
    expect(shownCommand(`/bin/bash -lc "printf '%s\\\\n' \\"x\\" > a"`)).toBe(`printf '%s\\n' "x" > a`);
    expect(shownCommand("/bin/bash -lc 'echo $$ > p && sleep 1'")).toBe('echo $$ > p && sleep 1');
    expect(shownCommand("/bin/bash -lc 'it'\\''s'")).toBe("/bin/bash -lc 'it'\\''s'");
    expect(shownCommand('git status')).toBe('git status');
  });
});

describe('the stand-in Responses API', () => {
  let model: StandInModel;
  beforeAll(async () => {
    model = await startStandInModel();
  });
  afterAll(async () => {
    await model.close();
  });

  const ask = (prompt: string, extra: Record<string, unknown> = {}) =>
    fetch(`${model.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-5.5',
        stream: true,
        input: [
          {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/x</cwd>\n</environment_context>' }],
          },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${prompt}\n` }] },
        ],
        tools: [{ type: 'function', name: 'exec_command', parameters: {} }],
        ...extra,
      }),
    });
  it('streams a text answer as the Responses API does, with its usage, and records the scenario', async () => {
    const response = await ask('stand-in:text');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const stream = sseEvents(await response.text());
    expect(stream.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(4).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(stream.map((event) => event.sequence_number)).toEqual(stream.map((_, index) => index));
    expect(stream.at(-2)).toMatchObject({
      item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Stand-in answer in four parts.' }] },
    });
    expect(stream.at(-1)).toMatchObject({
      response: { status: 'completed', model: 'gpt-5.5', usage: { input_tokens: 10, output_tokens: 8, total_tokens: 18 } },
    });
    expect(model.requests.at(-1)).toMatchObject({
      path: '/v1/responses',
      answer: 'openai-responses:scenario:text',
      status: 200,
      streamCompleted: true,
    });
  });

  it('calls the shell tool the request offers, then quotes its output once Codex sends it back', async () => {
    const stream = sseEvents(await (await ask('stand-in:write-file path=a.txt content=x')).text());
    const call = stream.find(
      (event) => event.type === 'response.output_item.done' && (event.item as { type: string }).type === 'function_call',
    );
    expect(call).toMatchObject({ item: { name: 'exec_command', call_id: expect.stringMatching(/^call_/) } });
    const args = (call!.item as { arguments: string }).arguments;
    expect(JSON.parse(args)).toEqual({ cmd: "printf '%s\\n' 'x' > 'a.txt' && cat 'a.txt'" });
    const pieces = stream.filter((event) => event.type === 'response.function_call_arguments.delta').map((event) => event.delta);
    expect(pieces.join('')).toBe(args);

    const answered = await ask('stand-in:write-file path=a.txt content=x', {
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'stand-in:write-file path=a.txt content=x\n' }] },
        { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: args },
        { type: 'function_call_output', call_id: 'call_1', output: 'Chunk ID: 1\nProcess exited with code 0\nOutput:\nx\n' },
      ],
    });
    const done = sseEvents(await answered.text()).filter((event) => event.type === 'response.output_item.done');
    expect(done).toEqual([
      expect.objectContaining({ item: expect.objectContaining({ content: [expect.objectContaining({ text: 'Wrote the file: x' })] }) }),
    ]);
  });

  it('answers errors with the API’s body, a request without stream as one response, an unknown tool set with 400', async () => {
    const failed = await ask('stand-in:error status=429');
    expect(failed.status).toBe(429);
    expect(await failed.json()).toEqual({
      error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    const whole = await ask('stand-in:text', { stream: false });
    expect(await whole.json()).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message' }] });
    const noShell = await ask('stand-in:write-file path=a.txt content=x', { tools: [] });
    expect(noShell.status).toBe(400);
    const plain = await ask('Just talk.');
    expect(sseEvents(await plain.text()).at(-2)).toMatchObject({ item: { content: [{ text: 'OK' }] } });
    expect(model.requests.at(-1)!.answer).toBe('openai-responses:default');
  });

  it('reads prompts, tool outputs and the offered tool as Codex sends them', () => {
    const body = {
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n</environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /x\n\nbe nice' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
        { type: 'function_call_output', call_id: 'old', output: 'old output' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
        { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'out' }] },
        { type: 'additional_tools', tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }] },
      ],
    };
    expect(responsesPromptsOf(body)).toEqual(['first', 'second']);
    expect(responsesToolOutputsOf(body)).toEqual([{ callId: 'c1', text: 'out' }]);
    expect(shellToolOf(body)).toBe('code_mode_exec');
    expect(shellToolOf({ tools: [{ type: 'function', name: 'shell_command' }] })).toBe('shell_command');
    expect(commandOutput('Process exited with code 2\nOutput:\nboom\n')).toEqual({ output: 'boom\n', failed: true });
    expect(openaiStandInEnv({ url: 'http://127.0.0.1:9' })).toEqual({
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'sk-stand-in',
    });
  });
});
