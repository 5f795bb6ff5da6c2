import fs from 'node:fs';
import path from 'node:path';
import { codexCli } from '../../activities/agents/codex';
import { AgentProcessError } from '../../activities/agents/run-agent';
import { repoRoot } from '../../lib/paths';
import { cliHarness } from '../support/cli-harness';
import { STAND_IN_API_KEY, STAND_IN_TEXT, type RecordedRequest, type StandInModel } from '../support/stand-in-model';
import { openaiStandInEnv, responsesPromptsOf, responsesToolOutputsOf } from '../support/stand-in-model/openai-responses';
import { rejection, until } from '../support/waiting';

/**
 * Issue 42 (Codex): the REAL pinned Codex CLI (@openai/codex 0.169.0, its native binary from the
 * platform package) run through runAgent as the service runs it (root, the pool's users, the session
 * store), against the stand-in Responses API (test/support/stand-in-model/openai-responses.ts). What
 * it prints and sends: docs/codex-cli.md.
 */

const TARGETS: Record<string, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };
const codexBinary = path.join(
  repoRoot,
  `node_modules/@openai/codex-linux-${process.arch}/vendor/${TARGETS[process.arch] ?? 'unknown'}/bin/codex`,
);
/** A model Codex knows (no "metadata not found" warning) whose tools are plain functions, not code mode. */
const MODEL = 'gpt-5.5';

/** The stand-in's Responses API, asked once: without CODEX_MAX_RETRIES=0 an error status is asked again twice (the adapter's default). */
const standIn = (model: StandInModel) => ({ ...openaiStandInEnv(model), CODEX_MAX_RETRIES: '0' });

const harness = cliHarness({
  name: 'codex-cli',
  cli: codexCli,
  command: codexBinary,
  run: { maxTurns: 0, model: MODEL },
  env: standIn,
  // The process of the run's cwd running `exec --json`.
  isCli: (cmdline) => cmdline.includes('exec\0--json\0'),
});
const { start } = harness;

/** The stand-in's Responses requests whose latest prompt is this one (Codex sends it with its newline). */
function requestsFor(prompt: string): RecordedRequest[] {
  return harness.model.requests.filter(
    (request) => request.path === '/v1/responses' && responsesPromptsOf(request.body).at(-1)?.trim() === prompt,
  );
}

describe('the real Codex CLI against the stand-in Responses API', () => {
  it('answers plainly: init with the thread id, the whole message, a result with the usage as tokens, no cost; only the stand-in is asked', async () => {
    harness.model.recordClients();
    const prompt = 'Answer plainly. stand-in:text';
    const run = start(prompt);
    const summary = await run.outcome;

    const [init, ...rest] = run.events;
    expect(init).toEqual({
      kind: 'init',
      sessionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      model: null,
      cwd: null,
    });
    const sessionId = (init as { sessionId: string }).sessionId;
    expect(rest).toEqual([
      { kind: 'raw', line: '{"type":"turn.started"}' },
      { kind: 'text', text: STAND_IN_TEXT, sessionId },
      {
        kind: 'result',
        isError: false,
        subtype: 'turn.completed',
        resultText: STAND_IN_TEXT,
        sessionId,
        costUsd: null,
        durationMs: null,
        turns: 1,
        // The stand-in's usage: 10 input tokens, a token per 4 characters out.
        tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      },
    ]);
    // Codex reports no duration: the run's is its process's, from spawn to exit.
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(summary).toMatchObject({
      exitCode: 0,
      signal: null,
      error: null,
      sessionId,
      output: STAND_IN_TEXT,
      resultText: STAND_IN_TEXT,
      turns: 1,
    });
    expect(summary.tokens).toEqual({ input: 10, output: 8, cacheRead: 0, cacheCreation: 0 });
    expect(run.chunks).toEqual([
      { type: 'chunk', content: STAND_IN_TEXT },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'system', content: `Resultado: 1 turnos | sessão: ${sessionId.slice(0, 8)}...` },
    ]);

    // One streamed request over plain HTTP with the key from OPENAI_API_KEY, the model asked for; nothing else.
    const [request] = requestsFor(prompt);
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/responses',
      answer: 'openai-responses:scenario:text',
      status: 200,
      streamCompleted: true,
    });
    expect(request!.headers.authorization).toBe(`Bearer ${STAND_IN_API_KEY}`);
    expect(request!.headers.accept).toBe('text/event-stream');
    expect(request!.headers['user-agent']).toMatch(/^codex_exec\/0\.169\.0 /);
    expect(request!.headers['session-id']).toBe(sessionId);
    expect(request!.body).toMatchObject({ model: MODEL, stream: true });
    expect(harness.model.requests.filter((other) => other.path !== '/v1/responses')).toEqual([]);
    // What the CLI was started with, as /proc showed it while it waited: the adapter's arguments, as a pool user.
    const client = request!.client!;
    expect(client.argv).toEqual([codexBinary, ...codexCli.buildArgs({ prompt, maxTurns: 0, model: MODEL }, standIn(harness.model))]);
    expect(client.uid).not.toBe(0);
    expect(client.cwd).toBe(run.cwd);
    expect(client.env.OPENAI_API_KEY).toBe(STAND_IN_API_KEY);
  });

  it('runs the shell tool call: the file is written in the working directory by the pool user, its output goes back, then the answer', async () => {
    const { run, requests } = await harness.writeFile('hello-from-codex', requestsFor);

    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'raw', 'raw', 'text', 'result']);
    const [, started, completed] = run.raws();
    expect(started).toMatchObject({ type: 'item.started', item: { type: 'command_execution', status: 'in_progress' } });
    expect(completed).toMatchObject({
      type: 'item.completed',
      item: { type: 'command_execution', aggregated_output: 'hello-from-codex\n', exit_code: 0, status: 'completed' },
    });
    expect(run.chunks.map((chunk) => chunk.type)).toEqual(['chunk', 'tool', 'turn', 'chunk', 'turn', 'system']);
    expect(run.chunks[1]).toEqual({
      type: 'tool',
      toolName: 'Shell',
      content: "Shell: mkdir -p 'out' && printf '%s\\n' 'hello-from-codex' > 'out/hello.txt' && cat 'out/hello.txt'",
    });

    // The second request carried the command's output back as a function_call_output.
    expect(responsesToolOutputsOf(requests[1]!.body)).toEqual([
      {
        callId: expect.stringMatching(/^call_standin_/),
        text: expect.stringMatching(/Process exited with code 0[\s\S]*Output:\nhello-from-codex\n$/),
      },
    ]);
  });

  it('an API error 401 ends the run with Codex’s message and the operator’s hint, asked once', async () => {
    const prompt = 'Fail please. stand-in:error status=401';
    const error = await rejection(start(prompt).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    const message = `unexpected status 401 Unauthorized: Incorrect API key provided: ${STAND_IN_API_KEY}, url: ${harness.model.url}/v1/responses, request id: req_standin_401`;
    expect(error.message).toBe(`codex terminou com o código 1: ${message} (${codexCli.failureHint!(message)})`);
    expect((error as AgentProcessError).summary).toMatchObject({
      exitCode: 1,
      resultText: message,
      output: '',
      costUsd: null,
      tokens: null,
    });
    expect(requestsFor(prompt).map((request) => request.status)).toEqual([401]);
  });

  it('a 500 is asked again at both of Codex’s retry levels, (1 + CODEX_MAX_RETRIES)² times, each retry said, then fails with Codex’s own sentence', async () => {
    const prompt = 'Overloaded? stand-in:error status=500';
    const run = start(prompt, { env: { CODEX_MAX_RETRIES: '1' } });
    const error = await rejection(run.outcome);

    expect(requestsFor(prompt).map((request) => request.status)).toEqual([500, 500, 500, 500]);
    const sentence = 'We’re currently experiencing high demand, which may cause temporary errors.';
    expect(error.message).toBe(`codex terminou com o código 1: ${sentence}`);
    expect(run.chunks.filter((chunk) => chunk.type === 'system').map((chunk) => chunk.content)).toEqual([
      `Reconnecting... 1/1 (${sentence})`,
      sentence,
      expect.stringMatching(/^Resultado: 0 turnos \| sessão: /),
    ]);
  });

  it('resumes the thread by its id in a second run in another directory (HOME emptied, the session from the store): the earlier turns are sent, the tokens are this run’s', async () => {
    const first = 'First question. stand-in:text';
    const one = await start(first).outcome;
    const second = 'Second question, after the first.';
    const run = start(second, { run: { resumeSessionId: one.sessionId! } });
    const two = await run.outcome;

    expect(two).toMatchObject({ error: null, sessionId: one.sessionId, resultText: 'OK' });
    expect(run.events[0]).toEqual({ kind: 'init', sessionId: one.sessionId, model: null, cwd: null });
    const [request] = requestsFor(second);
    expect(responsesPromptsOf(request!.body).map((text) => text.trim())).toEqual([first, second]);
    const input = (request!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'message', role: 'assistant', content: [expect.objectContaining({ text: STAND_IN_TEXT })] }),
      ]),
    );
    // turn.completed counts the whole thread (20 + 9); the first run's 10 + 8, read from the rollout
    // file the lease restored, are taken off: this run's 10 + 1.
    expect(run.events.find((event) => event.kind === 'result')).toMatchObject({ tokens: { input: 10, output: 1 } });
    expect(two.tokens).toEqual({ input: 10, output: 1, cacheRead: 0, cacheCreation: 0 });
  });

  it('sandboxes the commands as the permission mode says, as a pool user: workspace-write writes in the working directory, read-only cannot', async () => {
    const write = start('Write. stand-in:write-file path=out/ws.txt content=workspace', { run: { permissionMode: 'workspace-write' } });
    expect(await write.outcome).toMatchObject({ error: null, resultText: 'Wrote the file: workspace' });
    expect(fs.readFileSync(path.join(write.cwd, 'out/ws.txt'), 'utf8')).toBe('workspace\n');

    const read = start('Write. stand-in:write-file path=out/ro.txt content=readonly', { run: { permissionMode: 'read-only' } });
    const summary = await read.outcome;
    expect(summary.resultText).toBe('The tool failed: mkdir: cannot create directory ‘out’: Read-only file system');
    expect(fs.existsSync(path.join(read.cwd, 'out'))).toBe(false);
    // Seen with 0.169.0: a command the sandbox refused is printed as no item at all.
    expect(read.raws().map((line) => line.type)).toEqual(['turn.started']);
  });

  it('gives the system prompt as the model’s instructions, from a file in the run’s HOME', async () => {
    const prompt = 'Who are you?';
    await start(prompt, { run: { systemPrompt: '- Be brief.\nYou are the stand-in agent.' } }).outcome;

    const [request] = requestsFor(prompt);
    const [first] = (request!.body as { input: Array<{ role: string; content: Array<{ text: string }> }> }).input;
    expect(first).toMatchObject({ role: 'developer', content: [{ text: '- Be brief.\nYou are the stand-in agent.' }] });
  });

  it('cancel during a slow stream: Codex dies of the SIGTERM, the connection is dropped, no result line', async () => {
    const { run, pids, summary } = await harness.cancelDuringSlowStream(requestsFor);

    // No handler: the default action of SIGTERM (a shell would say 143).
    expect(summary).toMatchObject({ pid: pids[0], exitCode: null, signal: 'SIGTERM', output: '', resultText: null });
    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', 'result']);
    expect(run.events[2]).toMatchObject({ kind: 'result', isError: true, subtype: null, resultText: null });
  });

  it('cancel while a command runs ends Codex and its shell, leaves the user no process; the killed thread resumes', async () => {
    const { prompt, run, summary } = await harness.cancelWhileToolRuns(async (running) => {
      // The shell may run before Codex prints the command's item.started.
      await until(
        'Codex printed the command',
        async () => running.run.raws().some((line) => line.type === 'item.started'),
        Boolean,
        10_000,
      );
      // The command runs in a session of its own: the process group kill does not reach it.
      expect(fs.readFileSync(`/proc/${running.shell}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]).toBe(String(running.shell));
    });

    expect(run.raws().at(-1)).toMatchObject({ type: 'item.started', item: { type: 'command_execution' } });
    const sessionId = summary.sessionId!;
    expect(sessionId).toBe((run.events[0] as { sessionId: string }).sessionId);

    // The session of the cancelled run was kept: it resumes, the interrupted call answered "aborted".
    const next = 'Go on after the cancel.';
    const resumed = await start(next, { run: { resumeSessionId: sessionId } }).outcome;
    expect(resumed).toMatchObject({ error: null, sessionId, resultText: 'OK' });
    const [request] = requestsFor(next);
    expect(responsesPromptsOf(request!.body).map((text) => text.trim())).toEqual([prompt, next]);
    const input = (request!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'function_call_output', output: 'aborted' })]));
  });

  it('a resume of a thread it does not have: exit 1, nothing on standard output, the reason on standard error; the model is not asked', async () => {
    const prompt = 'Resume the unknown.';
    const error = await rejection(start(prompt, { run: { resumeSessionId: '01a222de-0000-7000-8000-000000000000' } }).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toMatch(
      /^codex terminou com o código 1\nstderr: Error: thread\/resume: thread\/resume failed: no rollout found for thread id 01a222de-0000-7000-8000-000000000000/,
    );
    expect(requestsFor(prompt)).toEqual([]);
  });
});
