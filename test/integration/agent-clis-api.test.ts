import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { createExecution } from '../../db/executions-store';
import { config } from '../../lib/config';
import { jsonCall, type JsonAnswer } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Which CLI an agent runs (`config.cli`; docs/agents.md, "Which CLI an agent runs"; issue 42 §1):
 * stored, versioned, exported and imported, duplicated; what the CLI cannot honour refused with a
 * pt-BR 400 when the agent is saved; the admin panel's form (which knows only Claude Code) saving a
 * Codex or Gemini agent without breaking it; the execution record naming the CLI its run used. No
 * agents worker polls here: a launched run stays queued until the test cancels it.
 */

let server: TestServer;
let database: DatabaseHandle;
const CLIENT_ID = randomUUID();
const launched: Array<{ agentId: string; executionId: string }> = [];

beforeAll(async () => {
  database = createDatabase(config.mysql);
  server = await startTestServer();
  // Runs are queued here, never run: no budget of another suite may refuse them.
  await call('PUT', '/api/settings', { dailyBudgetUsd: null });
});

afterAll(async () => {
  // Queued records end `canceled` at once (their workflows with them); an ended one answers 404, fine.
  for (const { agentId, executionId } of launched) await call('POST', `/api/agents/${agentId}/cancel/${executionId}`);
  await server?.close();
  await database?.pool.end();
});

const call = (method: string, path: string, body?: unknown): Promise<JsonAnswer> =>
  jsonCall(server.url, method, path, body, { clientId: CLIENT_ID });

let nameCounter = 0;
const uniqueName = (stem: string) => `${stem} ${process.pid} ${++nameCounter}`;

/** The body AgentsUI.save() builds: every key of its form, no `cli` (it has no such field). */
function panelBody(name: string, config: Record<string, unknown> = {}) {
  return {
    agent_name: name,
    description: 'Revisa pull requests',
    tags: ['review'],
    status: 'active',
    config: {
      systemPrompt: 'Você é um revisor.',
      // Its select lists Claude models only, and falls back to this one for a value it does not list.
      model: 'claude-sonnet-4-6',
      workingDirectory: '/home/projetos/',
      allowedTools: '',
      maxTurns: 0,
      // Its select shows '' ("Padrão") for a word it does not list.
      permissionMode: '',
      retryOnFailure: false,
      maxRetries: 3,
      delegateTo: '',
      ...config,
    },
  };
}

async function created(body: unknown): Promise<any> {
  const answer = await call('POST', '/api/agents', body);
  expect(answer.status).toBe(201);
  return answer.body;
}

const codexAgent = (name: string, config: Record<string, unknown> = {}) =>
  created({
    agent_name: name,
    config: {
      cli: 'codex',
      model: 'gpt-5.5',
      systemPrompt: 'Seja breve.',
      permissionMode: 'read-only',
      workingDirectory: '/home/projetos/',
      ...config,
    },
  });

async function storedRow(id: string): Promise<RowDataPacket> {
  const [rows] = await database.pool.query<RowDataPacket[]>(
    'SELECT cli, model, permission_mode, max_turns, allowed_tools FROM agents WHERE id = ?',
    [id],
  );
  return rows[0]!;
}

async function versionCount(id: string): Promise<number> {
  const [rows] = await database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM agent_versions WHERE agent_id = ?', [id]);
  return Number(rows[0]?.n);
}

describe('config.cli: stored, versioned, exported, imported, duplicated', () => {
  it('creates an agent of each CLI, shows and stores its cli; one created without it runs Claude Code', async () => {
    const codex = await codexAgent(uniqueName('Codex'));
    expect(codex.config).toEqual({
      cli: 'codex',
      systemPrompt: 'Seja breve.',
      model: 'gpt-5.5',
      workingDirectory: '/home/projetos',
      allowedTools: '',
      maxTurns: 0,
      permissionMode: 'read-only',
      retryOnFailure: false,
      maxRetries: 3,
      delegateTo: '',
    });
    expect(await storedRow(codex.id)).toEqual({
      cli: 'codex',
      model: 'gpt-5.5',
      permission_mode: 'read-only',
      max_turns: 0,
      allowed_tools: '',
    });

    // Gemini CLI has a turn limit (its settings' model.maxSessionTurns): taken, as Claude Code's.
    const gemini = await created({ agent_name: uniqueName('Gemini'), config: { cli: 'gemini', permissionMode: 'auto_edit', maxTurns: 7 } });
    expect(gemini.config).toMatchObject({ cli: 'gemini', model: '', permissionMode: 'auto_edit', maxTurns: 7 });
    expect((await call('GET', `/api/agents/${gemini.id}`)).body.config.cli).toBe('gemini');

    const claude = await created(panelBody(uniqueName('Claude')));
    expect(claude.config.cli).toBe('claude-code');
    expect((await storedRow(claude.id)).cli).toBe('claude-code');

    const listed = (await call('GET', '/api/agents')).body as Array<{ id: string; config: { cli: string } }>;
    expect(
      Object.fromEntries(listed.filter((a) => [codex.id, gemini.id, claude.id].includes(a.id)).map((a) => [a.id, a.config.cli])),
    ).toEqual({
      [codex.id]: 'codex',
      [gemini.id]: 'gemini',
      [claude.id]: 'claude-code',
    });
  });

  it('versions the cli: a change is a version naming it, and a restore brings the former CLI back with its settings', async () => {
    const agent = await codexAgent(uniqueName('Switcher'));
    // Naming the CLI, the whole config must suit it: Gemini's word for the mode, its model.
    const switched = await call('PUT', `/api/agents/${agent.id}`, {
      config: { cli: 'gemini', model: 'gemini-2.5-flash', permissionMode: 'yolo' },
    });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ version: 2, config: { cli: 'gemini', model: 'gemini-2.5-flash', permissionMode: 'yolo' } });

    const versions = await call('GET', `/api/agents/${agent.id}/versions`);
    expect(versions.body[0]).toMatchObject({
      version: 2,
      changelog: 'Atualizado: cli, model, permissionMode',
      changedFields: ['cli', 'model', 'permissionMode'],
      config: { cli: 'gemini', model: 'gemini-2.5-flash', permissionMode: 'yolo' },
    });
    expect(versions.body[1].snapshot.config).toMatchObject({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only' });

    const restored = await call('POST', `/api/agents/${agent.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, config: { cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only' } });
    expect(await storedRow(agent.id)).toMatchObject({ cli: 'codex', model: 'gpt-5.5', permission_mode: 'read-only' });
    expect((await call('GET', `/api/agents/${agent.id}/versions`)).body[0]).toMatchObject({
      changelog: 'Restaurado para versão 1',
      changedFields: ['cli', 'model', 'permissionMode'],
    });
  });

  it('exports the cli and imports it back; an import without it (older exports, the former format) is Claude Code', async () => {
    const agent = await codexAgent(uniqueName('Exported'), { permissionMode: 'workspace-write' });
    const exported = await call('GET', `/api/agents/${agent.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.config).toMatchObject({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'workspace-write' });

    const imported = await call('POST', '/api/agents/import', exported.body);
    expect(imported.status).toBe(201);
    expect(imported.body.agent_name).toBe(`${agent.agent_name} (importado)`);
    expect(imported.body.config).toEqual(exported.body.config);
    expect((await storedRow(imported.body.id)).cli).toBe('codex');

    const { cli: _cli, ...withoutCli } = exported.body.config;
    const older = await call('POST', '/api/agents/import', {
      ...exported.body,
      agent_name: uniqueName('Older export'),
      config: { ...withoutCli, model: 'claude-opus-4-6', permissionMode: 'plan' },
    });
    expect(older.status).toBe(201);
    expect(older.body.config).toMatchObject({ cli: 'claude-code', model: 'claude-opus-4-6', permissionMode: 'plan' });

    const former = await call('POST', '/api/agents/import', {
      format: 'agent-export',
      version: 1,
      agent: { name: uniqueName('Former'), model: 'sonnet', instructions: 'x', permissionMode: 'acceptEdits', maxTurns: 9 },
    });
    expect(former.status).toBe(201);
    expect(former.body.config).toMatchObject({ cli: 'claude-code', maxTurns: 9, permissionMode: 'acceptEdits' });

    // An export of another CLI's agent is checked as a creation: what that CLI cannot honour is refused, nothing created.
    const refused = await call('POST', '/api/agents/import', {
      ...exported.body,
      agent_name: uniqueName('Refused import'),
      config: { ...exported.body.config, cli: 'gemini' },
    });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error:
          'config.permissionMode: o CLI gemini (Google Gemini CLI) não tem o modo "workspace-write": use "" (o padrão, yolo) ou um de default, auto_edit, yolo, plan',
      },
    });
  });

  it('duplicates the cli with the agent', async () => {
    const agent = await created({
      agent_name: uniqueName('Original'),
      config: { cli: 'gemini', model: 'gemini-2.5-pro', permissionMode: 'plan' },
    });
    const copy = await call('POST', `/api/agents/${agent.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ agent_name: `${agent.agent_name} (cópia)`, version: 1, config: agent.config });
    expect(copy.body.config.cli).toBe('gemini');
    expect((await storedRow(copy.body.id)).cli).toBe('gemini');
  });
});

describe('what the CLI cannot honour is refused when the agent is saved (400, pt-BR)', () => {
  const codex = 'o CLI codex (OpenAI Codex CLI)';
  const gemini = 'o CLI gemini (Google Gemini CLI)';
  const config = (cli: string, rest: Record<string, unknown>) => ({ agent_name: uniqueName('Refused'), config: { cli, ...rest } });

  it.each([
    [
      'a CLI that does not exist',
      config('cursor', {}),
      'body.config.cli: Opção inválida: esperava uma das seguintes opções: "claude-code"|"codex"|"gemini"',
    ],
    ['a turn limit for Codex', config('codex', { maxTurns: 5 }), `config.maxTurns: ${codex} não tem limite de turnos: use 0 (sem limite)`],
    [
      'allowed tools for Codex',
      config('codex', { allowedTools: 'Bash,Read' }),
      `config.allowedTools: ${codex} não restringe ferramentas por nome: deixe vazio e escolha o permissionMode (read-only, workspace-write, danger-full-access)`,
    ],
    [
      'allowed tools for Gemini',
      config('gemini', { allowedTools: ['Read'] }),
      `config.allowedTools: ${gemini} não restringe ferramentas por nome: deixe vazio e escolha o permissionMode (default, auto_edit, yolo, plan)`,
    ],
    [
      "Claude Code's permission mode for Codex",
      config('codex', { permissionMode: 'bypassPermissions' }),
      `config.permissionMode: ${codex} não tem o modo "bypassPermissions": use "" (o padrão, danger-full-access) ou um de read-only, workspace-write, danger-full-access`,
    ],
    [
      "Gemini's permission mode for Codex",
      config('codex', { permissionMode: 'yolo' }),
      `config.permissionMode: ${codex} não tem o modo "yolo": use "" (o padrão, danger-full-access) ou um de read-only, workspace-write, danger-full-access`,
    ],
    [
      "Claude Code's permission mode for Gemini",
      config('gemini', { permissionMode: 'acceptEdits' }),
      `config.permissionMode: ${gemini} não tem o modo "acceptEdits": use "" (o padrão, yolo) ou um de default, auto_edit, yolo, plan`,
    ],
    [
      "Codex's permission mode for Claude Code",
      config('claude-code', { permissionMode: 'read-only' }),
      'config.permissionMode: o CLI claude-code (Claude Code) não tem o modo "read-only": use "" (o padrão, bypassPermissions) ou um de default, acceptEdits, bypassPermissions, plan',
    ],
    [
      'a Claude model for Codex',
      config('codex', { model: 'claude-sonnet-4-6' }),
      `config.model: "claude-sonnet-4-6" é um modelo do Claude, que ${codex} não usa: informe um modelo dele ou "" (o padrão do CLI)`,
    ],
    [
      'a Claude Code alias for Gemini',
      config('gemini', { model: 'opus' }),
      `config.model: "opus" é um modelo do Claude, que ${gemini} não usa: informe um modelo dele ou "" (o padrão do CLI)`,
    ],
    [
      'several at once, each named',
      config('codex', { maxTurns: 3, allowedTools: 'Read', permissionMode: 'plan' }),
      `config.maxTurns: ${codex} não tem limite de turnos: use 0 (sem limite); ` +
        `config.allowedTools: ${codex} não restringe ferramentas por nome: deixe vazio e escolha o permissionMode (read-only, workspace-write, danger-full-access); ` +
        `config.permissionMode: ${codex} não tem o modo "plan": use "" (o padrão, danger-full-access) ou um de read-only, workspace-write, danger-full-access`,
    ],
  ])('refuses %s on create and stores nothing', async (_case, body, message) => {
    const answer = await call('POST', '/api/agents', body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM agents WHERE name = ?', [body.agent_name]);
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it.each(['claude-code', 'codex', 'gemini'])('takes "none" from every CLI (%s): 0 turns, no tools, "" as the mode', async (cli) => {
    const agent = await created({
      agent_name: uniqueName(`None ${cli}`),
      config: { cli, maxTurns: 0, allowedTools: '', permissionMode: '' },
    });
    expect(agent.config).toMatchObject({ cli, maxTurns: 0, allowedTools: '', permissionMode: '' });
  });

  it('refuses an update whose result the CLI cannot honour, checked against the stored fields; nothing changes', async () => {
    const claude = await created(panelBody(uniqueName('Claude to Codex'), { maxTurns: 10, allowedTools: 'Bash', permissionMode: 'plan' }));
    // Switching the CLI leaves the Claude settings in place: each is named, the agent stays as it was.
    const switched = await call('PUT', `/api/agents/${claude.id}`, { config: { cli: 'codex' } });
    expect(switched).toMatchObject({
      status: 400,
      body: {
        error:
          'config.model: "claude-sonnet-4-6" é um modelo do Claude, que o CLI codex (OpenAI Codex CLI) não usa: informe um modelo dele ou "" (o padrão do CLI); ' +
          'config.maxTurns: o CLI codex (OpenAI Codex CLI) não tem limite de turnos: use 0 (sem limite); ' +
          'config.allowedTools: o CLI codex (OpenAI Codex CLI) não restringe ferramentas por nome: deixe vazio e escolha o permissionMode (read-only, workspace-write, danger-full-access); ' +
          'config.permissionMode: o CLI codex (OpenAI Codex CLI) não tem o modo "plan": use "" (o padrão, danger-full-access) ou um de read-only, workspace-write, danger-full-access',
      },
    });
    expect(await storedRow(claude.id)).toMatchObject({ cli: 'claude-code', max_turns: 10 });
    expect(await versionCount(claude.id)).toBe(1);

    // With every setting made to suit it, the switch is taken.
    const suited = await call('PUT', `/api/agents/${claude.id}`, {
      config: { cli: 'codex', model: '', maxTurns: 0, allowedTools: '', permissionMode: '' },
    });
    expect(suited.status).toBe(200);
    expect(suited.body.config).toMatchObject({ cli: 'codex', model: '', maxTurns: 0, allowedTools: '', permissionMode: '' });

    // A later setting it cannot honour, alone, is refused against the stored CLI.
    const codex = await codexAgent(uniqueName('Codex turns'));
    expect(await call('PUT', `/api/agents/${codex.id}`, { config: { maxTurns: 4 } })).toMatchObject({
      status: 400,
      body: { error: 'config.maxTurns: o CLI codex (OpenAI Codex CLI) não tem limite de turnos: use 0 (sem limite)' },
    });
    expect(await versionCount(codex.id)).toBe(1);
  });
});

describe("the admin panel's form saving an agent of another CLI (it sends no cli, a Claude model, 0, '' and its own modes)", () => {
  it('keeps a Codex agent working: cli, model and a mode the form cannot show are kept; what the user edited is stored', async () => {
    const agent = await codexAgent(uniqueName('Panel Codex'));
    const name = uniqueName('Panel Codex renamed');
    const saved = await call('PUT', `/api/agents/${agent.id}`, panelBody(name, { systemPrompt: 'Revise com cuidado.' }));
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      agent_name: name,
      description: 'Revisa pull requests',
      version: 2,
      config: {
        cli: 'codex',
        // The form's Claude fallback is not stored: the agent's own model stays.
        model: 'gpt-5.5',
        systemPrompt: 'Revise com cuidado.',
        maxTurns: 0,
        allowedTools: '',
        // '' from a select that could not show read-only: the stored mode stays (never widened to full access).
        permissionMode: 'read-only',
      },
    });
    expect(await storedRow(agent.id)).toEqual({
      cli: 'codex',
      model: 'gpt-5.5',
      permission_mode: 'read-only',
      max_turns: 0,
      allowed_tools: '',
    });
    expect((await call('GET', `/api/agents/${agent.id}/versions`)).body[0]).toMatchObject({
      changedFields: ['agent_name', 'description', 'tags', 'systemPrompt'],
    });

    // Saved again as it reads back (the form's round trip): nothing of the CLI's changes.
    const again = await call(
      'PUT',
      `/api/agents/${agent.id}`,
      panelBody(name, { systemPrompt: 'Revise com cuidado.', model: 'claude-opus-4-6' }),
    );
    expect(again.status).toBe(200);
    expect(again.body.config).toMatchObject({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only' });
    expect((await call('GET', `/api/agents/${agent.id}/versions`)).body[0].changelog).toBe('Atualizado (sem alterações)');
  });

  it("keeps a Gemini agent without a model on the CLI's default, and a mode the form lists as chosen", async () => {
    const agent = await created({ agent_name: uniqueName('Panel Gemini'), config: { cli: 'gemini', permissionMode: 'plan' } });
    // `plan` is in the form's list too: shown, sent back, kept; the form's Claude model is not stored.
    const saved = await call('PUT', `/api/agents/${agent.id}`, panelBody(agent.agent_name, { permissionMode: 'plan' }));
    expect(saved.status).toBe(200);
    expect(saved.body.config).toMatchObject({ cli: 'gemini', model: '', permissionMode: 'plan' });
    // The user choosing "Padrão" where the form can show the stored mode: the CLI's default.
    const defaulted = await call('PUT', `/api/agents/${agent.id}`, panelBody(agent.agent_name, { permissionMode: '' }));
    expect(defaulted.body.config).toMatchObject({ cli: 'gemini', model: '', permissionMode: '' });
    expect((await storedRow(agent.id)).model).toBeNull();
  });

  it('refuses, with the reason, what the user chose in the form that the CLI cannot honour', async () => {
    const agent = await codexAgent(uniqueName('Panel refused'));
    const answer = await call(
      'PUT',
      `/api/agents/${agent.id}`,
      panelBody(agent.agent_name, { maxTurns: 20, permissionMode: 'acceptEdits' }),
    );
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error:
          'config.maxTurns: o CLI codex (OpenAI Codex CLI) não tem limite de turnos: use 0 (sem limite); ' +
          'config.permissionMode: o CLI codex (OpenAI Codex CLI) não tem o modo "acceptEdits": use "" (o padrão, danger-full-access) ou um de read-only, workspace-write, danger-full-access',
      },
    });
    expect(await versionCount(agent.id)).toBe(1);
  });

  it("changes a Claude Code agent's model and mode from the form as before", async () => {
    const agent = await created(panelBody(uniqueName('Panel Claude'), { permissionMode: 'acceptEdits' }));
    const saved = await call(
      'PUT',
      `/api/agents/${agent.id}`,
      panelBody(agent.agent_name, { model: 'claude-opus-4-6', permissionMode: '' }),
    );
    expect(saved.body.config).toMatchObject({ cli: 'claude-code', model: 'claude-opus-4-6', permissionMode: '' });
  });
});

describe('the execution record names the CLI its run used', () => {
  async function execute(agentId: string): Promise<any> {
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task: 'diga oi' });
    expect(answer.status).toBe(202);
    launched.push({ agentId, executionId: answer.body.executionId });
    const record = await call('GET', `/api/executions/history/${answer.body.executionId}`);
    expect(record.status).toBe(200);
    return record.body;
  }

  it("records the agent's cli and model; a CLI without Claude models gets no settings' model ('': its own default)", async () => {
    const settings = (await call('GET', '/api/settings')).body;
    const codex = await codexAgent(uniqueName('Run Codex'));
    expect(await execute(codex.id)).toMatchObject({ type: 'agent', agentId: codex.id, cli: 'codex', model: 'gpt-5.5', status: 'queued' });

    const gemini = await created({ agent_name: uniqueName('Run Gemini'), config: { cli: 'gemini' } });
    expect(await execute(gemini.id)).toMatchObject({ cli: 'gemini', model: '' });

    const claude = await created({ agent_name: uniqueName('Run Claude') });
    expect(await execute(claude.id)).toMatchObject({ cli: 'claude-code', model: settings.defaultModel });

    // The history list and the active list carry it too.
    const history = await call('GET', `/api/executions/history?agentId=${codex.id}`);
    expect(history.status).toBe(200);
    expect(history.body.items.map((item: any) => item.cli)).toEqual(['codex']);
    const active = await call('GET', '/api/executions/active');
    expect(active.body.find((item: any) => item.agentId === gemini.id)).toMatchObject({ cli: 'gemini' });
  });

  it("keeps the parent's CLI for a retry and a continue after the agent changed CLI (a session belongs to its CLI)", async () => {
    const agent = await codexAgent(uniqueName('Run switched'));
    const first = await execute(agent.id);
    expect(await call('POST', `/api/agents/${agent.id}/cancel/${first.id}`)).toMatchObject({ status: 200 });
    const sessionId = randomUUID();
    await createExecution(database.db, {
      kind: 'agent',
      agentId: agent.id,
      agentName: agent.agent_name,
      source: 'manual',
      task: 'primeira',
      instructions: '',
      workingDirectory: config.orchestration.workdirRoots[0]!,
      model: 'gpt-5.5',
      cli: 'codex',
      sessionId,
    });
    // A run of that session that ended (no workflow ever ran it).
    await database.pool.query("UPDATE executions SET status = 'completed', finished_at = NOW(3) WHERE session_id = ?", [sessionId]);

    const switched = await call('PUT', `/api/agents/${agent.id}`, {
      config: { cli: 'claude-code', model: 'claude-haiku-4-5-20251001', permissionMode: '' },
    });
    expect(switched.status).toBe(200);

    const retried = await call('POST', `/api/executions/${first.id}/retry`);
    expect(retried.status).toBe(200);
    launched.push({ agentId: agent.id, executionId: retried.body.executionId });
    expect((await call('GET', `/api/executions/history/${retried.body.executionId}`)).body).toMatchObject({
      source: 'retry',
      cli: 'codex',
      model: 'gpt-5.5',
    });

    const continued = await call('POST', `/api/agents/${agent.id}/continue`, { sessionId, message: 'continue' });
    expect(continued.status).toBe(202);
    launched.push({ agentId: agent.id, executionId: continued.body.executionId });
    expect((await call('GET', `/api/executions/history/${continued.body.executionId}`)).body).toMatchObject({
      source: 'continue',
      cli: 'codex',
      model: 'gpt-5.5',
    });

    // A new run takes the agent's CLI as it is now.
    expect(await execute(agent.id)).toMatchObject({ cli: 'claude-code', model: 'claude-haiku-4-5-20251001' });
  });

  it("shows a pipeline run's record with no CLI of its own", async () => {
    const run = await createExecution(database.db, {
      kind: 'pipeline',
      agentId: null,
      agentName: uniqueName('Pipeline'),
      source: 'manual',
      task: 'entrada',
      instructions: '',
      workingDirectory: config.orchestration.workdirRoots[0]!,
      model: 'sonnet',
    });
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT cli FROM executions WHERE id = ?', [run.id]);
    expect(rows[0]).toEqual({ cli: null });
    expect((await call('GET', `/api/executions/history/${run.id}`)).body).toMatchObject({ type: 'pipeline', cli: null });
    // No workflow runs it: gone again, so no other suite finds it active.
    await database.pool.query('DELETE FROM executions WHERE id = ?', [run.id]);
  });
});
