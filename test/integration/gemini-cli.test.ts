import path from 'node:path';
import { geminiCli } from '../../activities/agents/gemini';
import { AgentProcessError } from '../../activities/agents/run-agent';
import { repoRoot } from '../../lib/paths';
import { cliHarness } from '../support/cli-harness';
import type { RecordedRequest } from '../support/stand-in-model';
import { GEMINI_STAND_IN_TEXT, geminiFunctionResponsesOf, geminiPromptsOf } from '../support/stand-in-model/gemini';
import { rejection } from '../support/waiting';

/**
 * Issue 42 (Gemini): the REAL Gemini CLI (node_modules/.bin/gemini, @google/gemini-cli 0.61.0) run
 * through runAgent as the service runs it (root, the pool's users, the sessions kept in the store),
 * against the stand-in's Gemini API (test/support/stand-in-model/gemini.ts); what it prints and
 * sends is in docs/gemini-cli.md.
 */

const geminiCommand = path.join(repoRoot, 'node_modules/.bin/gemini');
const MODEL = 'gemini-2.5-flash';
const API_KEY = 'gemini-stand-in-key';
/** The adapter's arguments for every run of this suite (headless, yolo, the model), as the process got them. */
const ARGUMENTS = ['--output-format', 'stream-json', '--skip-trust', '--approval-mode', 'yolo', '-m', MODEL];

const harness = cliHarness({
  name: 'gemini-cli',
  cli: geminiCli,
  command: geminiCommand,
  run: { maxTurns: 0, model: MODEL },
  env: (model) => ({ GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: model.url }),
  // Its script run by node (the CLI; a child it relaunched itself as, were it to).
  isCli: (cmdline) => cmdline.includes('node_modules/.bin/gemini'),
});
const { start } = harness;

beforeAll(() => harness.model.recordClients());

/** The stand-in's Gemini requests whose latest user text is this prompt (a routing call has none: -m is given). */
function requestsFor(prompt: string): RecordedRequest[] {
  return harness.model.requests.filter(
    (request) => request.path.startsWith('/v1beta/models/') && geminiPromptsOf(request.body).at(-1) === prompt,
  );
}

describe('the real Gemini CLI against the stand-in model', () => {
  it('streams a plain answer: init with the session id, the deltas joined into one message, a result with the tokens', async () => {
    const prompt = 'Answer plainly. stand-in:text';
    const run = start(prompt);
    const summary = await run.outcome;

    const [init, echo, ...rest] = run.events;
    expect(init).toMatchObject({ kind: 'init', model: MODEL, cwd: null });
    const sessionId = (init as { sessionId: string }).sessionId;
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // The CLI echoes the prompt as a user message.
    expect(JSON.parse((echo as { line: string }).line)).toMatchObject({ type: 'message', role: 'user', content: prompt });
    expect(rest).toEqual([
      { kind: 'text', text: GEMINI_STAND_IN_TEXT, sessionId },
      {
        kind: 'result',
        isError: false,
        subtype: 'success',
        resultText: GEMINI_STAND_IN_TEXT,
        sessionId,
        costUsd: null,
        durationMs: expect.any(Number),
        turns: 1,
        // 10 input and 8 output tokens: the stand-in's usageMetadata (a token per 4 characters).
        tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      },
    ]);
    expect(summary).toMatchObject({
      exitCode: 0,
      signal: null,
      error: null,
      sessionId,
      output: GEMINI_STAND_IN_TEXT,
      resultText: GEMINI_STAND_IN_TEXT,
      costUsd: null,
      turns: 1,
      tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
    });
    expect(run.chunks.filter((chunk) => chunk.type !== 'stderr')).toEqual([
      { type: 'chunk', content: GEMINI_STAND_IN_TEXT },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      {
        type: 'system',
        content: expect.stringMatching(
          new RegExp(`^Resultado: 1 turnos \\| duração: \\d+\\.\\ds \\| sessão: ${sessionId.slice(0, 8)}\\.\\.\\.$`),
        ),
      },
    ]);
    // Only what YOLO mode says on standard error (0.61.0 prints it twice; the terminal shows it once):
    // the settings silenced the rest.
    expect(run.chunks.filter((chunk) => chunk.type === 'stderr').map((chunk) => chunk.content)).toEqual([
      'YOLO mode is enabled. All tool calls will be automatically approved.',
    ]);

    // What the CLI asked: one streamed generateContent of the model given, with the key; nothing else.
    const [request, ...others] = requestsFor(prompt);
    expect(others).toEqual([]);
    expect(request).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/${MODEL}:streamGenerateContent`,
      answer: 'gemini:scenario:text',
      status: 200,
      streamCompleted: true,
    });
    expect(request!.headers['x-goog-api-key']).toBe(API_KEY);
    expect(request!.headers['user-agent']).toMatch(/^GeminiCLI-tui\/0\.61\.0\/gemini-2\.5-flash /);
    // Sent by a pool user, by the process runAgent started: the adapter's GEMINI_CLI_NO_RELAUNCH=true
    // keeps 0.61.0 from starting itself again as a child with a heap size.
    const client = request!.client!;
    expect(client.uid).not.toBe(0);
    expect(client.argv).toEqual([expect.stringMatching(/(^|\/)node$/), geminiCommand, ...ARGUMENTS]);
    expect(client.env).toMatchObject({
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_API_KEY: API_KEY,
      GOOGLE_GEMINI_BASE_URL: harness.model.url,
    });
    expect(client.cwd).toBe(run.cwd);
  });

  it('runs the shell tool call the model streams: the file is written in the working directory, its output goes back, then the answer', async () => {
    const { run, requests } = await harness.writeFile('hello-from-gemini', requestsFor);

    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'raw', 'raw', 'text', 'result']);
    const [, toolCall, toolResult] = run.raws();
    expect(toolCall).toMatchObject({
      type: 'tool_use',
      tool_name: 'run_shell_command',
      parameters: { command: "mkdir -p 'out' && printf '%s\\n' 'hello-from-gemini' > 'out/hello.txt' && cat 'out/hello.txt'" },
    });
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_id: toolCall!.tool_id, status: 'success', output: 'hello-from-gemini' });
    expect(run.chunks.filter((chunk) => chunk.type === 'tool')).toEqual([
      {
        type: 'tool',
        toolName: 'run_shell_command',
        content: "run_shell_command: mkdir -p 'out' && printf '%s\\n' 'hello-from-gemini' > 'out/hello.txt' && cat 'out/hello.txt'",
      },
    ]);

    // The second request carried the tool's outcome back as a functionResponse.
    expect(geminiFunctionResponsesOf(requests[0]!.body)).toEqual([]);
    expect(geminiFunctionResponsesOf(requests[1]!.body)).toEqual([
      { name: 'run_shell_command', output: expect.stringContaining('Output: hello-from-gemini'), isError: false },
    ]);
  });

  it.each([
    // A refused key gets the operator's hint (geminiCli.failureHint); a quota error does not. Exit code: the HTTP status modulo 256.
    [
      401,
      145,
      '[API Error: {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}]',
      true,
    ],
    [429, 173, expect.stringMatching(/^\[API Error: Resource has been exhausted \(e\.g\. check quota\)\.\]/), false],
  ])('an API error %i ends the run with the CLI’s message, asked once (maxAttempts 1)', async (status, exitCode, message, hinted) => {
    const prompt = `Fail please. stand-in:error status=${status}`;
    const error = await rejection(start(prompt).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    const summary = (error as AgentProcessError).summary;
    expect(summary).toMatchObject({
      exitCode,
      resultText: message,
      output: '',
      turns: 0,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    });
    const hint = geminiCli.failureHint!(summary.resultText!);
    expect(hint !== null).toBe(hinted);
    expect(
      error.message.startsWith(
        `gemini terminou com o código ${exitCode}: ${summary.resultText}${hint === null ? '' : ` (${hint})`}\nstderr: `,
      ),
    ).toBe(true);
    // What a person reads: no YOLO notice, no stack frame, no path of a report file the run's HOME loses.
    expect(error.message).not.toContain('YOLO mode');
    expect(error.message).not.toMatch(/^\s+at /m);
    expect(error.message).not.toContain('Full report available at');
    expect(requestsFor(prompt).map((request) => request.status)).toEqual([status]);
  });

  it('retries as GEMINI_MAX_ATTEMPTS says (read by the adapter into its settings), announcing it on standard error only', async () => {
    const prompt = 'Overloaded? stand-in:error status=503';
    const run = start(prompt, { env: { GEMINI_MAX_ATTEMPTS: '2' } });
    const error = await rejection(run.outcome);

    expect(requestsFor(prompt).map((request) => request.status)).toEqual([503, 503]);
    // With its backoff: seconds between the two.
    const [one, two] = requestsFor(prompt);
    expect(two!.receivedAt - one!.receivedAt).toBeGreaterThan(1_000);
    expect((error as AgentProcessError).summary).toMatchObject({
      exitCode: 247,
      resultText: '[API Error: The model is overloaded. Please try again later.]',
    });
    expect(run.raws().map((line) => line.type)).toEqual(['message']);
    expect(run.chunks).toEqual(
      expect.arrayContaining([
        { type: 'stderr', content: expect.stringMatching(/^Attempt 1 failed with status 503\. Retrying with backoff\.\.\./) },
      ]),
    );
  });

  it('runs as one process: the adapter sets GEMINI_CLI_NO_RELAUNCH=true', async () => {
    const prompt = 'One process. stand-in:text';
    const summary = await start(prompt).outcome;
    // The process that asked the model is the one runAgent started: node with the script, no heap option of a relaunch.
    const client = requestsFor(prompt)[0]!.client!;
    expect(client.pid).toBe(summary.pid);
    expect(client.argv.slice(1)).toEqual([geminiCommand, ...ARGUMENTS]);
  });

  it('ends at the turn limit (maxSessionTurns in its settings) with FatalTurnLimitedError, exit 53', async () => {
    const prompt = 'One turn only. stand-in:write-file path=one.txt content=one';
    const error = await rejection(start(prompt, { run: { maxTurns: 1 } }).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    expect((error as AgentProcessError).summary).toMatchObject({
      exitCode: 53,
      turns: 1,
      resultText:
        'Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.',
    });
    // The tool of the first turn ran; the model was not asked again.
    expect(requestsFor(prompt)).toHaveLength(1);
  });

  it('adds the agent’s system prompt (~/.gemini/GEMINI.md) to its own', async () => {
    const prompt = 'Who am I talking to? stand-in:text';
    await start(prompt, { run: { systemPrompt: '- You are the stand-in reviewer.\n- Answer briefly.' } }).outcome;

    const [request] = requestsFor(prompt);
    const system = JSON.stringify((request!.body as { systemInstruction: unknown }).systemInstruction);
    expect(system).toContain('You are a non-interactive CLI agent');
    expect(system).toContain('- You are the stand-in reviewer.\\n- Answer briefly.');
  });

  it('resumes a session by id in a second run from the same directory, through the session store: the stand-in receives the earlier turns', async () => {
    const cwd = path.join(harness.workspace, 'resumed');
    const first = 'First question. stand-in:text';
    const one = await start(first, { cwd }).outcome;
    const second = 'Second question, after the first.';
    const run = start(second, { cwd, run: { resumeSessionId: one.sessionId! } });
    const two = await run.outcome;

    expect(two).toMatchObject({
      error: null,
      sessionId: one.sessionId,
      resultText: 'OK',
      tokens: { input: 10, output: 1, cacheRead: 0, cacheCreation: 0 },
    });
    expect(run.events[0]).toMatchObject({ kind: 'init', sessionId: one.sessionId });
    const [request] = requestsFor(second);
    expect(geminiPromptsOf(request!.body)).toEqual([first, second]);
    const contents = (request!.body as { contents: Array<{ role: string; parts: Array<{ text?: string }> }> }).contents;
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts).toEqual([{ text: GEMINI_STAND_IN_TEXT }]);
  });

  it('does not resume from another working directory: exit 42, said on standard error only', async () => {
    const one = await start('A session here. stand-in:text', { cwd: path.join(harness.workspace, 'here') }).outcome;
    const error = await rejection(
      start('And there?', { cwd: path.join(harness.workspace, 'there'), run: { resumeSessionId: one.sessionId! } }).outcome,
    );

    expect(error).toBeInstanceOf(AgentProcessError);
    expect((error as AgentProcessError).summary).toMatchObject({ exitCode: 42, sessionId: null, resultText: null });
    expect(error.message).toBe(
      'gemini terminou com o código 42\nstderr: Error resuming session: No previous sessions found for this project.',
    );
  });

  it('cancel during a slow stream ends the CLI (one process, not relaunched) and drops the connection; the session still resumes', async () => {
    const cwd = path.join(harness.workspace, 'cancelled');
    const { prompt, run, pids, summary, request } = await harness.cancelDuringSlowStream(requestsFor, cwd);

    // The CLI alone: not relaunched as a child (GEMINI_CLI_NO_RELAUNCH).
    expect(pids).toHaveLength(1);
    // SIGTERM: the child exits 0 without a result line, then the parent (which ignores SIGTERM) with its code.
    expect(summary).toMatchObject({ exitCode: 0, signal: null, resultText: null });
    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', ...(summary.output === '' ? [] : ['text']), 'result']);
    expect(run.events.at(-1)).toMatchObject({ kind: 'result', isError: true, resultText: null, tokens: null });
    expect(request).toMatchObject({ answer: 'gemini:scenario:slow', status: 200 });

    // The killed run's session was kept: a continue resumes it, with its prompt (the unfinished answer was never written).
    const next = 'Are you still there?';
    const resumed = await start(next, { cwd, run: { resumeSessionId: summary.sessionId! } }).outcome;
    expect(resumed).toMatchObject({ error: null, sessionId: summary.sessionId, resultText: 'OK' });
    expect(geminiPromptsOf(requestsFor(next)[0]!.body)).toEqual([prompt, next]);
  });

  it('cancel while a tool runs ends the CLI; its shell (a session of its own, left running by the CLI) is ended with its user’s processes', async () => {
    const { run, pids } = await harness.cancelWhileToolRuns();

    expect(pids).toHaveLength(1);
    expect(run.raws()[1]).toMatchObject({ type: 'tool_use', tool_name: 'run_shell_command' });
  });

  it('a long answer arrives as one text event; the summary keeps its bounded beginning', async () => {
    await harness.longAnswer();
  });
});

describe('the stand-in’s Gemini API itself', () => {
  const { post } = harness;
  const ask = (prompt: string, method = 'streamGenerateContent?alt=sse', extra: Record<string, unknown> = {}) =>
    post(`/v1beta/models/gemini-x:${method}`, {
      contents: [{ role: 'user', parts: [{ text: '<session_context>stand-in:error status=500</session_context>' }, { text: prompt }] }],
      ...extra,
    });
  /** The SSE frames of a streamed answer: `data: <json>` and a blank line each. */
  const frames = (body: string) =>
    body
      .split('\r\n\r\n')
      .filter((frame) => frame !== '')
      .map((frame) => {
        expect(frame.startsWith('data: ')).toBe(true);
        return JSON.parse(frame.slice('data: '.length)) as { candidates: Array<Record<string, any>>; usageMetadata?: unknown };
      });

  it('streams text in chunks and a tool call as a functionCall part, the last chunk with finishReason and usageMetadata', async () => {
    const response = await ask('stand-in:text');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = frames(await response.text());
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts[0].text).join('')).toBe(GEMINI_STAND_IN_TEXT);
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 8, totalTokenCount: 18 },
      modelVersion: 'gemini-x',
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined)).toBe(true);

    const call = frames(await (await ask('stand-in:write-file path=a.txt content=x')).text());
    expect(call.map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: 'Writing a.txt.' }],
      [
        {
          functionCall: {
            name: 'run_shell_command',
            args: { command: "printf '%s\\n' 'x' > 'a.txt' && cat 'a.txt'", description: 'Write a.txt' },
          },
        },
      ],
    ]);
  });

  it("answers errors with the API's body, generateContent as one response, JSON requests by their schema, token counts, recording each", async () => {
    const failed = await ask('stand-in:error status=429');
    expect(failed.status).toBe(429);
    expect(await failed.json()).toEqual({
      error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' },
    });

    const whole = await ask('stand-in:text', 'generateContent');
    expect(await whole.json()).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: GEMINI_STAND_IN_TEXT }] }, finishReason: 'STOP' }],
    });

    const routed = await ask('stand-in:text', 'generateContent', {
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'OBJECT',
          properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } },
        },
      },
    });
    const routedText = ((await routed.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> }).candidates[0]!
      .content.parts[0]!.text;
    expect(JSON.parse(routedText)).toEqual({ complexity_reasoning: 'stand-in', complexity_score: 1 });

    const counted = await post('/v1beta/models/gemini-x:countTokens', { contents: [] });
    expect(await counted.json()).toEqual({ totalTokens: 10 });
    expect(harness.model.requests.slice(-4).map((request) => [request.path, request.answer, request.status])).toEqual([
      ['/v1beta/models/gemini-x:streamGenerateContent', 'gemini:scenario:error', 429],
      ['/v1beta/models/gemini-x:generateContent', 'gemini:scenario:text', 200],
      ['/v1beta/models/gemini-x:generateContent', 'gemini:json', 200],
      ['/v1beta/models/gemini-x:countTokens', 'gemini:other', 200],
    ]);
  });
});
