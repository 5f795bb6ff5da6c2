import fs from 'node:fs';
import path from 'node:path';
import { AgentOptionsError } from '../../activities/agents/agent-cli';
import { agentCliFor } from '../../activities/agents/agent-clis';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode, parseClaudeLine, resultSummary } from '../../activities/agents/claude-code';
import { MAX_HELD_TEXT } from '../../activities/agents/cli-lines';
import { recordLineOf } from '../../activities/agents/record-output';
import type { OutputChunk } from '../../lib/live-output';

// Lines as Claude Code 2.x prints them with `-p --output-format stream-json --verbose` (ids shortened).
const lines = {
  init: '{"type":"system","subtype":"init","cwd":"/srv/agents/site","session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10","tools":["Task","Bash","Glob","Grep","Read","Edit","Write","TodoWrite"],"mcp_servers":[],"model":"claude-sonnet-4-5-20250929","permissionMode":"bypassPermissions","slash_commands":["compact","review"],"apiKeySource":"ANTHROPIC_API_KEY","output_style":"default","uuid":"6f1c2d3e-0000-4000-8000-000000000001"}',
  assistantText:
    '{"type":"assistant","message":{"id":"msg_01GXv2id9iRP2AkB3A6ASNu9","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"I\'ll read the README first."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":7924,"cache_read_input_tokens":13368,"output_tokens":9,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10","uuid":"6f1c2d3e-0000-4000-8000-000000000002"}',
  assistantTwoTexts:
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Part one, "},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}},{"type":"text","text":"part two."}]},"session_id":"s-1"}',
  assistantToolUse:
    '{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01ABC123","name":"Bash","input":{"command":"ls -la"}}]},"parent_tool_use_id":null,"session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10"}',
  userToolResult:
    '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01ABC123","type":"tool_result","content":"total 2\\nREADME.md\\n","is_error":false}]},"parent_tool_use_id":null,"session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10"}',
  resultSuccess:
    '{"type":"result","subtype":"success","is_error":false,"duration_ms":3952,"duration_api_ms":12932,"num_turns":4,"result":"The README now has an install section.","session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10","total_cost_usd":0.10457895,"usage":{"input_tokens":2,"output_tokens":9},"permission_denials":[],"uuid":"6f1c2d3e-0000-4000-8000-000000000003"}',
  resultMaxTurns:
    '{"type":"result","subtype":"error_max_turns","is_error":false,"duration_ms":61000,"duration_api_ms":58000,"num_turns":11,"session_id":"0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10","total_cost_usd":0.5,"usage":{"input_tokens":2,"output_tokens":9}}',
  resultErrors:
    '{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":120,"num_turns":0,"session_id":"s-2","total_cost_usd":0,"errors":["API Error: 401 invalid x-api-key","aborted"]}',
};

describe('Claude Code adapter: argument list', () => {
  it('builds print mode with stream-json, --verbose, the turn limit and bypassPermissions by default', () => {
    expect(claudeCode.buildArgs({ prompt: 'Fix the tests', maxTurns: 10 }, {})).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--max-turns',
      '10',
      '--permission-mode',
      'bypassPermissions',
    ]);
  });

  it('adds the model, the chosen permission mode and --resume with the session id', () => {
    expect(
      claudeCode.buildArgs(
        {
          prompt: 'Go on',
          maxTurns: 3,
          model: 'claude-sonnet-4-5',
          permissionMode: 'acceptEdits',
          resumeSessionId: 'abc-123',
        },
        {},
      ),
    ).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--max-turns',
      '3',
      '--permission-mode',
      'acceptEdits',
      '--model',
      'claude-sonnet-4-5',
      '--resume',
      'abc-123',
    ]);
  });

  it('adds the system prompt and the allowed tools as one comma-separated value', () => {
    expect(
      claudeCode.buildArgs(
        {
          prompt: 'Review',
          maxTurns: 4,
          systemPrompt: 'You review code.\n- Be brief.',
          allowedTools: ['Read', 'Grep', 'Bash(git diff:*)'],
        },
        {},
      ),
    ).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--max-turns',
      '4',
      '--permission-mode',
      'bypassPermissions',
      '--system-prompt=You review code.\n- Be brief.',
      '--allowedTools',
      'Read,Grep,Bash(git diff:*)',
    ]);
  });

  it('leaves out --max-turns for 0 (no limit) and --allowedTools for an empty list', () => {
    expect(claudeCode.buildArgs({ prompt: 'x', maxTurns: 0, allowedTools: [] }, {})).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--permission-mode',
      'bypassPermissions',
    ]);
  });

  it('never puts the prompt in the argument list', () => {
    expect(claudeCode.buildArgs({ prompt: 'secret plan', maxTurns: 1 }, {}).join(' ')).not.toContain('secret plan');
  });

  it.each([
    [{ maxTurns: -1 }, 'maxTurns deve ser um inteiro não negativo, recebido -1'],
    [{ maxTurns: 2.5 }, 'maxTurns deve ser um inteiro não negativo, recebido 2.5'],
    [
      { maxTurns: 1, permissionMode: 'yolo' },
      'permissionMode deve ser um destes: default, acceptEdits, bypassPermissions, plan; recebido yolo',
    ],
    [
      { maxTurns: 1, model: '--dangerously-skip-permissions' },
      'model não pode ser vazio nem começar com "-", recebido "--dangerously-skip-permissions"',
    ],
    [{ maxTurns: 1, resumeSessionId: '' }, 'resumeSessionId não pode ser vazio nem começar com "-", recebido ""'],
    [{ maxTurns: 1, systemPrompt: ' ' }, 'systemPrompt não pode ser vazio, recebido " "'],
    [
      { maxTurns: 1, allowedTools: ['Read', '--dangerously-skip-permissions'] },
      'um item de allowedTools não pode ser vazio nem começar com "-", recebido "--dangerously-skip-permissions"',
    ],
    [{ maxTurns: 1, allowedTools: ['Read', ''] }, 'um item de allowedTools não pode ser vazio nem começar com "-", recebido ""'],
    [{ maxTurns: 1, allowedTools: ['Read,Write'] }, 'um item de allowedTools não pode conter ",", recebido "Read,Write"'],
  ])('refuses %j', (options, message) => {
    const build = () => claudeCode.buildArgs({ prompt: 'x', ...options }, {});
    expect(build).toThrow(AgentOptionsError);
    expect(build).toThrow(message);
  });
});

describe('Claude Code adapter: parsing stdout lines', () => {
  it('reads the init event: session id, model and working directory', () => {
    expect(parseClaudeLine(lines.init)).toEqual({
      kind: 'init',
      sessionId: '0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10',
      model: 'claude-sonnet-4-5-20250929',
      cwd: '/srv/agents/site',
    });
  });

  it('reads assistant text, joining the text blocks of one message and skipping tool calls', () => {
    expect(parseClaudeLine(lines.assistantText)).toEqual({
      kind: 'text',
      text: "I'll read the README first.",
      sessionId: '0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10',
    });
    expect(parseClaudeLine(lines.assistantTwoTexts)).toEqual({ kind: 'text', text: 'Part one, part two.', sessionId: 's-1' });
  });

  it('reads a successful result: text, cost, duration, turns, session id', () => {
    expect(parseClaudeLine(lines.resultSuccess)).toEqual({
      kind: 'result',
      isError: false,
      subtype: 'success',
      resultText: 'The README now has an install section.',
      sessionId: '0b4a6c3e-5f1d-4c8e-9a57-3e2f1d7c9b10',
      costUsd: 0.10457895,
      durationMs: 3952,
      turns: 4,
      // An older usage without the cache counts: those are 0.
      tokens: { input: 2, output: 9, cacheRead: 0, cacheCreation: 0 },
    });
  });

  it('reads the result usage: input, output, cache read and cache creation tokens; none without a usage', () => {
    const usage = {
      input_tokens: 1200,
      output_tokens: 340,
      cache_read_input_tokens: 56_000,
      cache_creation_input_tokens: 780,
      service_tier: 'standard',
    };
    expect(parseClaudeLine(JSON.stringify({ type: 'result', subtype: 'success', usage }))).toMatchObject({
      kind: 'result',
      tokens: { input: 1200, output: 340, cacheRead: 56_000, cacheCreation: 780 },
    });
    expect(parseClaudeLine(JSON.stringify({ type: 'result', subtype: 'success' }))).toMatchObject({ tokens: null });
    expect(parseClaudeLine(JSON.stringify({ type: 'result', subtype: 'success', usage: { service_tier: 'standard' } }))).toMatchObject({
      tokens: null,
    });
    // Not a count (negative, fractional, a string): read as absent.
    expect(
      parseClaudeLine(
        JSON.stringify({
          type: 'result',
          usage: { input_tokens: -1, output_tokens: 2.5, cache_read_input_tokens: '7', cache_creation_input_tokens: 3 },
        }),
      ),
    ).toMatchObject({
      tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 3 },
    });
  });

  it('takes any subtype other than success as an error, and reads `errors` when there is no `result`', () => {
    expect(parseClaudeLine(lines.resultMaxTurns)).toMatchObject({
      kind: 'result',
      isError: true,
      subtype: 'error_max_turns',
      resultText: null,
      turns: 11,
    });
    expect(parseClaudeLine(lines.resultErrors)).toEqual({
      kind: 'result',
      isError: true,
      subtype: 'error_during_execution',
      resultText: 'API Error: 401 invalid x-api-key; aborted',
      sessionId: 's-2',
      costUsd: 0,
      durationMs: 120,
      turns: 0,
      tokens: null,
    });
  });

  it.each([
    ['a tool call', lines.assistantToolUse],
    ['a tool result', lines.userToolResult],
    ['plain text', 'Warning: running as root'],
    ['broken JSON', '{"type":"assistant","message":'],
    ['a JSON array', '[1,2,3]'],
    ['a JSON string', '"hello"'],
    ['an init without a session id', '{"type":"system","subtype":"init"}'],
    ['another system event', '{"type":"system","subtype":"compact_boundary","session_id":"s"}'],
    // As Claude Code 2.1.331 prints them against the stand-in model (docs/claude-code-cli.md).
    [
      'a retry notice',
      '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":599,"error_status":401,"error":"authentication_failed","session_id":"s"}',
    ],
    [
      'an API error printed as a synthetic assistant message',
      '{"type":"assistant","message":{"id":"b22b","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","type":"message","content":[{"type":"text","text":"Invalid API key · Fix external API key"}]},"parent_tool_use_id":null,"session_id":"s","error":"authentication_failed","is_api_error_message":true,"api_error_status":401,"api_error_type":"authentication_error"}',
    ],
  ])('passes %s through as a raw line', (_name, line) => {
    expect(parseClaudeLine(line)).toEqual({ kind: 'raw', line });
  });
});

describe('choosing the adapter', () => {
  it('uses Claude Code for `claude` by name or path, and for commands speaking its protocol', () => {
    expect(agentCliFor('claude').name).toBe('claude-code');
    expect(agentCliFor('/usr/local/bin/claude').name).toBe('claude-code');
    expect(agentCliFor('/repo/test/fixtures/fake-agent/fake-agent.js').name).toBe('claude-code');
  });
});

describe('agentBaseEnv', () => {
  it('keeps what a shell and the CLI need and drops the service credentials', () => {
    expect(
      agentBaseEnv({
        PATH: '/usr/bin',
        HOME: '/home/app',
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        ANTHROPIC_API_KEY: 'sk-ant',
        CLAUDE_CONFIG_DIR: '/c',
        MYSQL_PASSWORD: 'app',
        AUTH_TOKEN: 'token-token-token',
        AGENT_SECRETS_KEY: 'ff',
        REDIS_HOST: '127.0.0.1',
      }),
    ).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/app',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      ANTHROPIC_API_KEY: 'sk-ant',
      CLAUDE_CONFIG_DIR: '/c',
    });
  });
});

/** Lines the real CLI 2.1.331 printed against the stand-in model (test/fixtures/stand-in-model/captured/). */
function captured(name: string): string[] {
  const file = path.join(__dirname, '..', 'fixtures', 'stand-in-model', 'captured', `${name}.jsonl`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

function mapAll(stdout: string[], stderr: string[] = []): OutputChunk[] {
  const mapper = claudeCode.outputMapper();
  return [...stdout.flatMap((line) => mapper.stdout(line)), ...stderr.flatMap((line) => mapper.stderr(line)), ...mapper.end()];
}

describe('Claude Code adapter: output as the terminal lines of the panel (contract 4.4)', () => {
  it('maps a tool-call run with --include-partial-messages: text, the tool line, a turn per API message, the summary', () => {
    expect(mapAll(captured('write-file'))).toEqual([
      { type: 'chunk', content: 'Writing out/a.txt.' },
      { type: 'tool', toolName: 'Bash', content: "Bash: mkdir -p 'out' && printf '%s\\n' 'hello' > 'out/a.txt' && cat 'out/a.txt'" },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      // Streamed in two deltas ("Wrote the f", "ile: hello"), sent as one line when its block stopped.
      { type: 'chunk', content: 'Wrote the file: hello' },
      { type: 'turn', content: 'Turno 2', turn: 2 },
      { type: 'system', content: 'Resultado: 2 turnos | custo: $0.0009 | duração: 0.3s | sessão: 117115ec...' },
    ]);
  });

  it('gives the same lines without --include-partial-messages (whole blocks only)', () => {
    const lines = mapAll(captured('write-file-without-partial'));
    expect(lines.map((line) => line.type)).toEqual(['chunk', 'tool', 'turn', 'chunk', 'turn', 'system']);
    expect(lines[3]).toEqual({ type: 'chunk', content: 'Wrote the file: hello' });
  });

  it('does not repeat the streamed text when the whole block arrives', () => {
    expect(mapAll(captured('text'))).toEqual([
      { type: 'chunk', content: 'Stand-in answer in four parts.' },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      {
        type: 'system',
        content: expect.stringMatching(/^Resultado: 1 turnos \| custo: \$0\.0002 \| duração: \d+\.\ds \| sessão: 3ab75c44\.\.\.$/),
      },
    ]);
  });

  it('shows no line for an API error printed as a message (the final message carries it), nor a turn', () => {
    expect(mapAll(captured('error-401'))).toEqual([
      { type: 'system', content: expect.stringMatching(/^Resultado: 1 turnos \| custo: \$0\.0000 \| /) },
    ]);
  });

  it('sends each finished line of streamed text at once and holds the rest until its block stops', () => {
    const mapper = claudeCode.outputMapper();
    const delta = (text: string) =>
      JSON.stringify({
        type: 'stream_event',
        event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        api_message_id: 'm1',
      });
    expect(mapper.stdout(delta('First line\nSec'))).toEqual([{ type: 'chunk', content: 'First line' }]);
    expect(mapper.stdout(delta('ond line\n\nThird'))).toEqual([{ type: 'chunk', content: 'Second line' }]);
    expect(mapper.stdout(delta(' part'))).toEqual([]);
    expect(
      mapper.stdout(JSON.stringify({ type: 'stream_event', event: { type: 'content_block_stop', index: 0 }, api_message_id: 'm1' })),
    ).toEqual([{ type: 'chunk', content: 'Third part' }]);
    // A line without an end is not held without bound.
    expect(mapper.stdout(delta('x'.repeat(MAX_HELD_TEXT)))).toEqual([{ type: 'chunk', content: 'x'.repeat(MAX_HELD_TEXT) }]);
  });

  it.each([
    [{ command: `npm test -- ${'a'.repeat(200)}`, description: 'Run' }, 'Bash', `Bash: npm test -- ${'a'.repeat(108)}...`],
    [{ file_path: '/srv/app/README.md' }, 'Read', 'Read: /srv/app/README.md'],
    [{ pattern: '**/*.ts', path: 'src' }, 'Glob', 'Glob: **/*.ts'],
    [{ query: 'koa websocket' }, 'WebSearch', 'WebSearch: koa websocket'],
    [{ path: 'src' }, 'LS', 'LS: src'],
    [{ prompt: 'p'.repeat(100) }, 'Task', `Task: ${'p'.repeat(80)}...`],
    [{ description: 'Plan the work' }, 'Task', 'Task: Plan the work'],
    [{ todos: [] }, 'TodoWrite', 'TodoWrite'],
  ])('names a tool call by its first detail: %j', (input, name, content) => {
    const line = JSON.stringify({ type: 'assistant', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name, input }] } });
    expect(claudeCode.outputMapper().stdout(line)).toEqual([{ type: 'tool', toolName: name, content }]);
  });

  it('shows system messages, error events, plain lines and standard error', () => {
    const mapper = claudeCode.outputMapper();
    expect(
      mapper.stdout('{"type":"system","subtype":"permission_denied","tool_name":"Bash","message":"Permission to use Bash was denied"}'),
    ).toEqual([{ type: 'system', content: 'Permission to use Bash was denied' }]);
    expect(mapper.stdout('{"type":"system","subtype":"api_retry","attempt":1}')).toEqual([]);
    expect(mapper.stdout('{"type":"error","error":{"message":"stream interrupted"}}')).toEqual([
      { type: 'system', content: 'stream interrupted' },
    ]);
    expect(mapper.stdout('Warning: running as root')).toEqual([{ type: 'chunk', content: 'Warning: running as root' }]);
    expect(mapper.stderr('  npm WARN deprecated  ')).toEqual([{ type: 'stderr', content: 'npm WARN deprecated' }]);
    expect(mapper.stderr('   ')).toEqual([]);
  });

  it('builds the result summary from the fields present only', () => {
    expect(resultSummary({ type: 'result', num_turns: 3, total_cost_usd: 0.12345, duration_ms: 61_250, session_id: '0b4a6c3e-5f1d' })).toBe(
      'Resultado: 3 turnos | custo: $0.1235 | duração: 61.3s | sessão: 0b4a6c3e...',
    );
    // Older CLIs: cost_usd.
    expect(resultSummary({ type: 'result', cost_usd: 0.5 })).toBe('Resultado: custo: $0.5000');
    expect(resultSummary({ type: 'result' })).toBeNull();
    expect(claudeCode.outputMapper().stdout('{"type":"result","subtype":"success"}')).toEqual([]);
  });

  it('keeps one marked line per chunk in the record', () => {
    expect(
      [
        { type: 'chunk', content: 'Vou ler.\nDepois escrever.' },
        { type: 'tool', toolName: 'Read', content: 'Read: README.md' },
        { type: 'turn', content: 'Turno 1', turn: 1 },
        { type: 'stderr', content: 'aviso' },
        { type: 'system', content: 'Resultado: 1 turnos' },
      ]
        .map((chunk) => recordLineOf(chunk as OutputChunk))
        .join(''),
    ).toBe('Vou ler.\nDepois escrever.\n▸ Read: README.md\n── Turno 1 ──\n[stderr] aviso\nResultado: 1 turnos\n');
  });
});

describe('claude-code failure hints', () => {
  it('tells the operator what to do when the CLI has no credentials, as the real CLI 2.1.331 says it', () => {
    expect(claudeCode.failureHint?.('Not logged in · Please run /login')).toMatch(
      /^o modelo recusou as credenciais: defina ANTHROPIC_API_KEY/,
    );
    expect(claudeCode.failureHint?.('Invalid API key · Fix external API key')).toMatch(/ANTHROPIC_API_KEY/);
    expect(claudeCode.failureHint?.('Overloaded')).toBeNull();
  });
});
