import path from 'node:path';
import { claudeCode } from '../../activities/agents/claude-code';
import { AgentProcessError } from '../../activities/agents/run-agent';
import { repoRoot } from '../../lib/paths';
import { cliHarness } from '../support/cli-harness';
import { sseEvents } from '../support/cli-streams';
import { promptsOf, standInEnv, STAND_IN_TEXT, turnsOf } from '../support/stand-in-model';
import { rejection } from '../support/waiting';

/**
 * Issue 14, section 3: the REAL Claude Code CLI (node_modules/.bin/claude, 2.1.331) run through
 * runAgent as the service runs it (root, the pool's users), against the stand-in Messages API of
 * test/support/stand-in-model; what it prints and sends is in docs/claude-code-cli.md.
 */

const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');

const harness = cliHarness({
  name: 'real-cli',
  cli: claudeCode,
  command: claudeCli,
  run: { maxTurns: 5 },
  env: (model) => ({
    ...standInEnv(model),
    // Without it a 429/529 is retried 10 times with backoff up to 32 s (docs/claude-code-cli.md).
    CLAUDE_CODE_MAX_RETRIES: '0',
  }),
  // The process runAgent started, with the adapter's arguments.
  isCli: (cmdline) => cmdline.includes('--output-format'),
  // The lines --include-partial-messages adds: `stream_event` (one per API event) and `system` `status`.
  partial: (line) => line.type === 'stream_event' || (line.type === 'system' && line.subtype === 'status'),
});
const { start } = harness;

/** The stand-in's message requests whose latest prompt is this one. */
function requestsFor(prompt: string) {
  return harness.model.messages().filter((request) => promptsOf(request.body).at(-1) === prompt);
}

describe('the real Claude Code CLI against the stand-in model', () => {
  it('streams a plain answer: init with the session id, the text joined from its deltas, a result with the CLI’s cost', async () => {
    const prompt = 'Answer plainly. stand-in:text';
    const run = start(prompt);
    const summary = await run.outcome;

    const [init, ...rest] = run.events;
    expect(init).toMatchObject({ kind: 'init', model: 'claude-opus-5-5', cwd: run.cwd });
    const sessionId = (init as { sessionId: string }).sessionId;
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(rest).toEqual([
      { kind: 'text', text: STAND_IN_TEXT, sessionId },
      // 10 input and 8 output tokens (the stand-in's usage: a token per 4 characters), priced by the CLI for its default model.
      {
        kind: 'result',
        isError: false,
        subtype: 'success',
        resultText: STAND_IN_TEXT,
        sessionId,
        costUsd: expect.any(Number),
        durationMs: expect.any(Number),
        turns: 1,
        tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      },
    ]);
    expect(summary).toMatchObject({
      exitCode: 0,
      signal: null,
      error: null,
      sessionId,
      output: STAND_IN_TEXT,
      resultText: STAND_IN_TEXT,
      turns: 1,
    });
    expect(summary.costUsd).toBeGreaterThan(0);
    // --include-partial-messages: a status line before the request, then the stream's events as they come,
    // the four text deltas among them (the live output's source: claude-code.ts, ClaudeOutputMapper).
    expect(run.partials[0]).toMatchObject({ type: 'system', subtype: 'status', status: 'requesting' });
    const streamed = run.partials.flatMap((line) =>
      line.type === 'stream_event' ? [line.event as { type: string; delta?: { type: string; text: string } }] : [],
    );
    expect(streamed.map((event) => event.type)).toEqual([
      'message_start',
      'content_block_start',
      ...Array(4).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(
      streamed
        .filter((event) => event.delta?.type === 'text_delta')
        .map((event) => event.delta!.text)
        .join(''),
    ).toBe(STAND_IN_TEXT);

    // What the CLI asked of the API: one streamed message request, with the key and the prompt; nothing else.
    const [request] = requestsFor(prompt);
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages', answer: 'scenario:text', status: 200, streamCompleted: true });
    expect(request!.headers['x-api-key']).toBe('sk-stand-in');
    expect(request!.headers['user-agent']).toBe('claude-cli/2.1.331 (external, sdk-cli)');
    expect(request!.headers['x-claude-code-session-id']).toBe(sessionId);
    expect(request!.body).toMatchObject({ model: 'claude-opus-5-5', stream: true });
    expect(harness.model.requests.filter((other) => other.path !== '/v1/messages')).toEqual([]);
  });

  it('runs the Bash tool call the model streams: the file is written in the working directory, its output goes back, then the answer', async () => {
    const { run, summary, requests } = await harness.writeFile('hello-from-bash', requestsFor);

    expect(run.events.map((event) => event.kind)).toEqual(['init', 'text', 'raw', 'raw', 'text', 'result']);
    expect(run.events[1]).toMatchObject({ kind: 'text', text: 'Writing out/hello.txt.' });
    const [toolCall, toolResult] = run.raws();
    expect(toolCall).toMatchObject({
      type: 'assistant',
      message: {
        content: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: "mkdir -p 'out' && printf '%s\\n' 'hello-from-bash' > 'out/hello.txt' && cat 'out/hello.txt'" },
          },
        ],
      },
    });
    const toolUseId = (toolCall!.message as { content: Array<{ id: string }> }).content[0]!.id;
    expect(toolResult).toMatchObject({
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'hello-from-bash', is_error: false }] },
    });
    expect(run.events[4]).toMatchObject({ kind: 'text', text: 'Wrote the file: hello-from-bash' });
    expect(summary.costUsd).toBeGreaterThan(0);

    // The second request carried the tool's outcome back to the model.
    const lastTurn = turnsOf(requests[1]!.body).at(-1);
    expect(lastTurn).toMatchObject({
      role: 'user',
      content: expect.arrayContaining([
        expect.objectContaining({ type: 'tool_result', tool_use_id: toolUseId, content: 'hello-from-bash' }),
      ]),
    });
  });

  it('reports the tokens of the stand-in’s usage, cache reads and writes included, as the result’s tokens', async () => {
    const prompt = 'Count my tokens.';
    harness.model.enqueue({
      kind: 'text',
      text: 'Counted.',
      usage: { input_tokens: 1234, output_tokens: 56, cache_read_input_tokens: 7890, cache_creation_input_tokens: 321 },
      when: (request) => promptsOf(request.body).at(-1) === prompt,
    });
    const run = start(prompt);
    const summary = await run.outcome;

    expect(summary).toMatchObject({ error: null, resultText: 'Counted.' });
    expect(summary.tokens).toEqual({ input: 1234, output: 56, cacheRead: 7890, cacheCreation: 321 });
    expect(run.events.at(-1)).toMatchObject({ kind: 'result', tokens: { input: 1234, output: 56, cacheRead: 7890, cacheCreation: 321 } });
  });

  it('resumes a session with --resume: the stand-in receives the earlier turns', async () => {
    const first = 'First question. stand-in:text';
    const cwd = path.join(harness.workspace, 'resumed');
    const one = await start(first, { cwd }).outcome;
    const second = 'Second question, after the first.';
    const two = await start(second, { cwd, run: { resumeSessionId: one.sessionId! } }).outcome;

    expect(two).toMatchObject({ error: null, sessionId: one.sessionId, resultText: 'OK' });
    const [request] = requestsFor(second);
    expect(promptsOf(request!.body)).toEqual([first, second]);
    const turns = turnsOf(request!.body);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: STAND_IN_TEXT }] });
    expect(request!.headers['x-claude-code-session-id']).toBe(one.sessionId);
  });

  it('cancel during a slow stream ends the CLI and drops the connection', async () => {
    const { run, pids, summary, request } = await harness.cancelDuringSlowStream(requestsFor);

    // The CLI handles SIGTERM and exits 143 on its own.
    expect(summary).toMatchObject({ pid: pids[0], exitCode: 143, output: '', resultText: null });
    expect(request).toMatchObject({ answer: 'scenario:slow', status: 200 });
    expect(run.events.map((event) => event.kind)).toEqual(['init']);
  });

  it('cancel while a tool runs ends the CLI and the shell it started, and leaves its user no process', async () => {
    const { run } = await harness.cancelWhileToolRuns();

    // The tool call was streamed and printed before the cancel; no result came.
    expect(run.raws()[0]).toMatchObject({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Bash' }] } });
    expect(run.events.some((event) => event.kind === 'result')).toBe(false);
  });

  it.each([
    // A refused key gets the operator's hint (claudeCode.failureHint); a rate limit does not.
    [401, 'Invalid API key · Fix external API key', ` (${claudeCode.failureHint!('Invalid API key')})`],
    [429, 'API Error: Request rejected (429) · Number of requests has exceeded your rate limit', ''],
  ])('an API error %i ends the run with the CLI’s message, not as the agent’s output', async (status, message, hint) => {
    const prompt = `Fail please. stand-in:error status=${status}`;
    const error = await rejection(start(prompt).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe(`claude-code terminou com o código 1: ${message}${hint}`);
    expect((error as AgentProcessError).summary).toMatchObject({ exitCode: 1, resultText: message, output: '', costUsd: 0, turns: 1 });
    // CLAUDE_CODE_MAX_RETRIES=0: asked once.
    expect(requestsFor(prompt).map((request) => request.status)).toEqual([status]);
  });

  it('a 529 is retried as CLAUDE_CODE_MAX_RETRIES says, announced by an api_retry line, then fails with the CLI’s message', async () => {
    const prompt = 'Overloaded? stand-in:error status=529';
    const run = start(prompt, { env: { CLAUDE_CODE_MAX_RETRIES: '1' } });
    const error = await rejection(run.outcome);

    expect(requestsFor(prompt).map((request) => request.status)).toEqual([529, 529]);
    expect(run.raws()).toEqual([
      expect.objectContaining({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 1, error_status: 529, error: 'overloaded' }),
      expect.objectContaining({ type: 'assistant', is_api_error_message: true, api_error_status: 529 }),
    ]);
    expect(error.message).toMatch(/^claude-code terminou com o código 1: API Error: 529 Overloaded\. /);
    expect((error as AgentProcessError).summary.output).toBe('');
  });

  it('a long answer arrives whole in one text event; the summary keeps its bounded beginning', async () => {
    const { summary } = await harness.longAnswer();
    expect(summary.costUsd).toBeGreaterThan(0);
  });
});

describe('the stand-in model itself', () => {
  const { post } = harness;
  const ask = (prompt: string, extra: Record<string, unknown> = {}) =>
    post('/v1/messages', {
      model: 'claude-x',
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>stand-in:error status=500</system-reminder>' },
            { type: 'text', text: prompt },
          ],
        },
      ],
      ...extra,
    });
  it('streams a tool call as the Messages API does: the input as input_json_delta pieces that join to the JSON input', async () => {
    const response = await ask('stand-in:write-file path=a.txt content=x');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const stream = sseEvents(await response.text());
    expect(stream.map((event) => event.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(stream[5]).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'Bash', input: {} },
    });
    const json = stream
      .slice(6, 8)
      .map((event) => event.delta as { type: string; partial_json: string })
      .map((delta) => {
        expect(delta.type).toBe('input_json_delta');
        return delta.partial_json;
      })
      .join('');
    expect(JSON.parse(json)).toEqual({ command: "printf '%s\\n' 'x' > 'a.txt' && cat 'a.txt'", description: 'Write a.txt' });
    expect(stream[9]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: expect.any(Number) },
    });
  });

  it("answers errors with the API's body, a request without stream as one message, and any other call harmlessly, recording each", async () => {
    const failed = await ask('stand-in:error status=529');
    expect(failed.status).toBe(529);
    expect(await failed.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: 'req_standin_529',
    });
    const unsafe = await ask('stand-in:write-file path=../x content=y');
    expect(unsafe.status).toBe(400);

    const whole = await ask('stand-in:text', { stream: false });
    expect(await whole.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'text', text: STAND_IN_TEXT }],
      stop_reason: 'end_turn',
    });

    const counted = await post('/v1/messages/count_tokens', { messages: [] });
    expect(await counted.json()).toEqual({ input_tokens: 10 });
    const head = await fetch(`${harness.model.url}/api/hello`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(harness.model.requests.slice(-5).map((request) => [request.method, request.path, request.answer, request.status])).toEqual([
      ['POST', '/v1/messages', 'scenario:error', 529],
      ['POST', '/v1/messages', 'scenario:write-file', 400],
      ['POST', '/v1/messages', 'scenario:text', 200],
      ['POST', '/v1/messages/count_tokens', 'other', 200],
      ['HEAD', '/api/hello', 'other', 200],
    ]);
  });
});
