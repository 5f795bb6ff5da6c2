import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { SECRET_NAME_RULE } from '../../api/orchestration/agent-input';
import { agentSecretsForRun } from '../../api/orchestration/agents-routes';
import { agentRunConfigOf } from '../../activities/agents/run-options';
import { createDatabase, type DatabaseHandle } from '../../db';
import { findAgent } from '../../db/agents-store';
import { config } from '../../lib/config';
import { SecretDecryptionError, SecretsKeyMissingError } from '../../lib/secret-box';
import { jsonCall, type JsonAnswer } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The agents, secrets and versions routes as the admin panel calls them (contract rows 1-8, 12-16;
 * sections 3.1-3.3, 7.2): its exact bodies, its headers on every call (Content-Type: application/json
 * even without a body, X-Client-Id), and the values it reads back.
 */

let server: TestServer;
let database: DatabaseHandle;

const KEY = config.orchestration.secretsKey;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CLIENT_ID = randomUUID();

beforeAll(async () => {
  database = createDatabase(config.mysql);
  // The suite's own database (MYSQL_DATABASE): start from no agents (versions and secrets cascade).
  await database.pool.query('DELETE FROM agents');
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

/** As the panel's API.request: JSON content type and client id on every call, the body only when given. */
const call = (method: string, path: string, body?: unknown, raw?: string, base = server.url): Promise<JsonAnswer> =>
  jsonCall(base, method, path, body, { clientId: CLIENT_ID, raw });

async function count(table: 'agents' | 'agent_versions' | 'agent_secrets', agentId?: string): Promise<number> {
  const where = agentId === undefined ? '' : ' WHERE ' + (table === 'agents' ? 'id' : 'agent_id') + ' = ?';
  const [rows] = await database.pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}${where}`, [agentId]);
  return Number(rows[0]?.n);
}

let nameCounter = 0;
const uniqueName = (stem: string) => `${stem} ${++nameCounter}`;

/** The body AgentsUI.save() builds, every key present. */
function panelBody(name: string, config: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return {
    agent_name: name,
    description: 'Revisa pull requests',
    tags: ['review', 'lider'],
    status: 'active',
    ...top,
    config: {
      systemPrompt: 'Você é um revisor.\nSeja breve.',
      model: 'claude-sonnet-4-6',
      workingDirectory: '/home/projetos/',
      allowedTools: 'Bash,Read',
      maxTurns: 0,
      permissionMode: '',
      retryOnFailure: false,
      maxRetries: 3,
      delegateTo: '',
      ...config,
    },
  };
}

/** What the service answers for `panelBody(name)`: the same fields, the directory normalised. */
function expectedView(name: string, config: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  const body = panelBody(name, config, top);
  return {
    id: expect.stringMatching(UUID_V4),
    ...body,
    // The panel sends no `cli`: Claude Code, the default.
    config: { cli: 'claude-code', ...body.config, workingDirectory: String(body.config.workingDirectory).replace(/\/+$/, '') },
    version: 1,
    created_at: expect.stringMatching(ISO_TIME),
    updated_at: expect.stringMatching(ISO_TIME),
  };
}

async function createAgent(body: Record<string, unknown>) {
  const answer = await call('POST', '/api/agents', body);
  expect(answer.status).toBe(201);
  return answer.body;
}

describe('agents: create, read, list (rows 1-3)', () => {
  it("creates an agent from the panel's body, reads it back and lists it in a bare array", async () => {
    const name = uniqueName('Revisor');
    const created = await call('POST', '/api/agents', panelBody(name));
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expectedView(name));
    expect(created.body.config.workingDirectory).toBe('/home/projetos');
    expect(created.body.updated_at).toBe(created.body.created_at);
    expect(created.headers.get('location')).toBe(`/api/agents/${created.body.id}`);

    expect(await call('GET', `/api/agents/${created.body.id}`)).toMatchObject({ status: 200, body: created.body });

    const list = await call('GET', '/api/agents');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.find((agent: any) => agent.id === created.body.id)).toEqual(created.body);

    // The system prompt is the agent's instructions; the panel's '' permission mode is stored as is.
    const [rows] = await database.pool.query<RowDataPacket[]>(
      'SELECT name, instructions, model, working_directory, permission_mode, max_turns, tags, status, allowed_tools, retry_on_failure, max_retries, delegate_to FROM agents WHERE id = ?',
      [created.body.id],
    );
    expect(rows[0]).toEqual({
      name,
      instructions: 'Você é um revisor.\nSeja breve.',
      model: 'claude-sonnet-4-6',
      working_directory: '/home/projetos',
      permission_mode: '',
      max_turns: 0,
      tags: '["review","lider"]',
      status: 'active',
      allowed_tools: 'Bash,Read',
      retry_on_failure: 0,
      max_retries: 3,
      delegate_to: null,
    });
  });

  it('keeps every config value the panel can send', async () => {
    const name = uniqueName('Full config');
    const config = {
      model: 'claude-opus-4-6',
      workingDirectory: '/home/projetos/app',
      allowedTools: 'Bash(git:*), Read,Write',
      maxTurns: 100,
      permissionMode: 'acceptEdits',
      retryOnFailure: true,
      maxRetries: 2,
    };
    const created = await createAgent(panelBody(name, config, { status: 'inactive', tags: [] }));
    expect(created).toEqual(expectedView(name, config, { status: 'inactive', tags: [] }));
  });

  it("fills the legacy defaults when only agent_name is given: active, no limit of turns, bypassPermissions, the settings' model and directory ('')", async () => {
    const name = uniqueName('Minimal');
    const created = await createAgent({ agent_name: `  ${name}  ` });
    expect(created).toEqual({
      id: expect.stringMatching(UUID_V4),
      agent_name: name,
      description: '',
      tags: [],
      status: 'active',
      config: {
        cli: 'claude-code',
        systemPrompt: '',
        model: '',
        workingDirectory: '',
        allowedTools: '',
        maxTurns: 0,
        // The specification's default mode, stored and shown (not '', which the panel's "Padrão" sends).
        permissionMode: 'bypassPermissions',
        retryOnFailure: false,
        maxRetries: 3,
        delegateTo: '',
      },
      version: 1,
      created_at: expect.stringMatching(ISO_TIME),
      updated_at: expect.stringMatching(ISO_TIME),
    });
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT model, working_directory, permission_mode FROM agents WHERE id = ?', [
      created.id,
    ]);
    expect(rows[0]).toEqual({ model: null, working_directory: null, permission_mode: 'bypassPermissions' });
    // Another CLI's agent gets that CLI's default word; '' given is kept ("Padrão": the same mode at run time).
    expect((await createAgent({ agent_name: uniqueName('Gemini'), config: { cli: 'gemini' } })).config.permissionMode).toBe('yolo');
    expect((await createAgent({ agent_name: uniqueName('Codex'), config: { cli: 'codex' } })).config.permissionMode).toBe(
      'danger-full-access',
    );
    expect((await createAgent(panelBody(uniqueName('Padrão'), { permissionMode: '' }))).config.permissionMode).toBe('');
  });

  it('accepts and ignores the keys of the legacy format it does not keep; keeps config.timeout; joins an array of tools; trims and dedupes tags', async () => {
    const name = uniqueName('Legacy keys');
    const body = {
      ...panelBody(name, { allowedTools: ['Read', 'Grep'], timeout: 60_000 }),
      tags: [' review ', 'review', 'po'],
      id: 'not-kept',
      tasks: [],
      assigned_host: 'localhost',
      executions: [],
      created_at: '2020-01-01T00:00:00.000Z',
      updated_at: '2020-01-01T00:00:00.000Z',
    };
    const created = await createAgent(body);
    expect(created.id).toMatch(UUID_V4);
    expect(created.created_at).not.toBe('2020-01-01T00:00:00.000Z');
    expect(created.tags).toEqual(['review', 'po']);
    expect(created.config.allowedTools).toBe('Read,Grep');
    expect(created.config.timeout).toBe(60_000);
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT timeout_ms FROM agents WHERE id = ?', [created.id]);
    expect(rows[0]).toEqual({ timeout_ms: 60_000 });
  });

  it('shows no config.timeout for an agent created without one (the service default applies), and stores null', async () => {
    const created = await createAgent(panelBody(uniqueName('Sem limite')));
    expect(created.config).not.toHaveProperty('timeout');
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT timeout_ms FROM agents WHERE id = ?', [created.id]);
    expect(rows[0]).toEqual({ timeout_ms: null });
  });

  it('refuses a second agent with the same name, in any case (409 {error}), and creates nothing', async () => {
    const name = uniqueName('Único');
    await createAgent(panelBody(name));
    const before = await count('agents');
    const conflict = await call('POST', '/api/agents', panelBody(name.toUpperCase()));
    expect(conflict).toMatchObject({ status: 409, body: { error: `Já existe um agente chamado "${name.toUpperCase()}"` } });
    expect(await count('agents')).toBe(before);
  });

  const config = (values: Record<string, unknown>) => panelBody('Bad', values);
  const top = (values: Record<string, unknown>) => panelBody('Bad', {}, values);
  it.each([
    ['no agent_name', { description: 'x' }, 'body.agent_name: Entrada inválida: esperava um texto, recebeu um valor "undefined"'],
    ['a blank agent_name', { agent_name: '   ' }, 'body.agent_name: Pequeno demais: esperava que o texto tivesse >= 1 caracteres'],
    [
      'an agent_name of 101 characters',
      { agent_name: 'n'.repeat(101) },
      'body.agent_name: Grande demais: esperava que o texto tivesse <= 100 caracteres',
    ],
    [
      'the former field name',
      { name: 'T' },
      'body.agent_name: Entrada inválida: esperava um texto, recebeu um valor "undefined"; body: Chave inválida: "name"',
    ],
    [
      'a description of 2 001 characters',
      top({ description: 'd'.repeat(2001) }),
      'body.description: Grande demais: esperava que o texto tivesse <= 2000 caracteres',
    ],
    [
      '21 tags',
      top({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
      'body.tags: Grande demais: esperava que o vetor tivesse <= 20 elementos',
    ],
    [
      'a tag of 51 characters',
      top({ tags: ['t'.repeat(51)] }),
      'body.tags.0: Grande demais: esperava que o texto tivesse <= 50 caracteres',
    ],
    ['a blank tag', top({ tags: ['ok', ' '] }), 'body.tags.1: Pequeno demais: esperava que o texto tivesse >= 1 caracteres'],
    ['a tag that is not a string', top({ tags: [7] }), 'body.tags.0: Entrada inválida: esperava um texto, recebeu um número'],
    ['another status', top({ status: 'paused' }), 'body.status: Opção inválida: esperava uma das seguintes opções: "active"|"inactive"'],
    [
      'a system prompt of 50 001 characters',
      config({ systemPrompt: 's'.repeat(50_001) }),
      'body.config.systemPrompt: Grande demais: esperava que o texto tivesse <= 50000 caracteres',
    ],
    [
      'a model that reads as an option',
      config({ model: '--dangerous' }),
      'body.config.model: Deve ser um nome de modelo: letras, dígitos e . _ : / @ [ ] - (no máximo 100)',
    ],
    ['501 turns', config({ maxTurns: 501 }), 'body.config.maxTurns: Grande demais: esperava que o número fosse <= 500'],
    ['-1 turns', config({ maxTurns: -1 }), 'body.config.maxTurns: Pequeno demais: esperava que o número fosse >= 0'],
    [
      'fractional turns',
      config({ maxTurns: 1.5 }),
      'body.config.maxTurns: Entrada inválida: esperava um número inteiro, recebeu um número',
    ],
    ['turns as text', config({ maxTurns: '10' }), 'body.config.maxTurns: Entrada inválida: esperava um número, recebeu um texto'],
    [
      'a permission mode of no CLI',
      config({ permissionMode: 'superuser' }),
      'body.config.permissionMode: Opção inválida: esperava uma das seguintes opções: ""|"default"|"acceptEdits"|"bypassPermissions"|"plan"|"read-only"|"workspace-write"|"danger-full-access"|"auto_edit"|"yolo"',
    ],
    [
      'another CLI\'s permission mode (docs/agents.md, "Which CLI an agent runs")',
      config({ permissionMode: 'yolo' }),
      'config.permissionMode: o CLI claude-code (Claude Code) não tem o modo "yolo": use "" (o padrão, bypassPermissions) ou um de default, acceptEdits, bypassPermissions, plan',
    ],
    [
      'a tool that reads as an option',
      config({ allowedTools: 'Read, --dangerously-skip-permissions' }),
      'body.config.allowedTools: Deve ser uma lista de nomes de ferramentas separados por vírgula, nenhum começando com "-" nem contendo caractere de controle',
    ],
    [
      '2 001 characters of tools',
      config({ allowedTools: 'R'.repeat(2001) }),
      'body.config.allowedTools: Grande demais: esperava que o texto tivesse <= 2000 caracteres',
    ],
    [
      'retryOnFailure as text',
      config({ retryOnFailure: 'yes' }),
      'body.config.retryOnFailure: Entrada inválida: esperava um valor booleano, recebeu um texto',
    ],
    ['0 retries', config({ maxRetries: 0 }), 'body.config.maxRetries: Pequeno demais: esperava que o número fosse >= 1'],
    ['a time limit under 1 s', config({ timeout: 999 }), 'body.config.timeout: Pequeno demais: esperava que o número fosse >= 1000'],
    [
      'a time limit over 24 h',
      config({ timeout: 86_400_001 }),
      'body.config.timeout: Grande demais: esperava que o número fosse <= 86400000',
    ],
    [
      'a time limit in fractions of a ms',
      config({ timeout: 1500.5 }),
      'body.config.timeout: Entrada inválida: esperava um número inteiro, recebeu um número',
    ],
    ['a time limit as text', config({ timeout: '60000' }), 'body.config.timeout: Entrada inválida: esperava um número, recebeu um texto'],
    ['4 retries', config({ maxRetries: 4 }), 'body.config.maxRetries: Grande demais: esperava que o número fosse <= 3'],
    [
      'a delegate that is no agent',
      config({ delegateTo: '00000000-0000-4000-8000-000000000000' }),
      'config.delegateTo: "00000000-0000-4000-8000-000000000000" não é o id de outro agente',
    ],
    [
      'a relative working directory',
      config({ workingDirectory: 'projects/x' }),
      'body.config.workingDirectory: O diretório de trabalho deve ser um caminho absoluto (recebido "projects/x")',
    ],
    [
      'a directory outside the roots',
      config({ workingDirectory: '/etc/x' }),
      'body.config.workingDirectory: O diretório de trabalho "/etc/x" está fora dos diretórios permitidos (/home/projetos)',
    ],
    ['an unknown config key', config({ temperature: 1 }), 'body.config: Chave inválida: "temperature"'],
    ['an unknown key', top({ owner: 'me' }), 'body: Chave inválida: "owner"'],
    ['an array', [panelBody('T')], 'body: Entrada inválida: esperava um objeto, recebeu um vetor'],
  ])('answers 400 {error} to a body with %s and creates nothing', async (_case, body, message) => {
    const before = await count('agents');
    const answer = await call('POST', '/api/agents', body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect(await count('agents')).toBe(before);
  });

  it('answers 400 to a body that is not JSON and creates nothing', async () => {
    const before = await count('agents');
    const answer = await call('POST', '/api/agents', undefined, '{"agent_name": ');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^Corpo JSON inválido; o analisador diz: \S/);
    expect(await count('agents')).toBe(before);
  });

  it('answers 404 {error} for an unknown agent on every per-agent route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/agents/${id}`],
      ['PUT', `/api/agents/${id}`, panelBody('Ghost')],
      ['DELETE', `/api/agents/${id}`],
      ['GET', `/api/agents/${id}/export`],
      ['POST', `/api/agents/${id}/duplicate`],
      ['GET', `/api/agents/${id}/versions`],
      ['POST', `/api/agents/${id}/versions/1/restore`],
      ['GET', `/api/agents/${id}/secrets`],
      ['POST', `/api/agents/${id}/secrets`, { name: 'A', value: 'b' }],
      ['DELETE', `/api/agents/${id}/secrets/A`],
    ];
    const before = await count('agents');
    for (const [method, path, body] of routes) {
      const answer = await call(method, path, body);
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({
        method,
        path,
        status: 404,
        body: { error: `Agente não encontrado: ${id}` },
      });
    }
    expect(await count('agents')).toBe(before);
  });
});

describe('agents: update and delegation (row 4)', () => {
  it("replaces every field with the panel's body, and merges a partial config over the stored one", async () => {
    const name = uniqueName('Editado');
    const created = await createAgent(panelBody(name));
    const edited = {
      model: 'claude-haiku-4-5-20251001',
      systemPrompt: 'Só leia os testes.',
      maxTurns: 40,
      permissionMode: 'plan',
      retryOnFailure: true,
      maxRetries: 1,
      workingDirectory: '',
    };
    const updated = await call(
      'PUT',
      `/api/agents/${created.id}`,
      panelBody(`${name} v2`, edited, { status: 'inactive', tags: ['po'], description: '' }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      ...expectedView(`${name} v2`, edited, { status: 'inactive', tags: ['po'], description: '' }),
      id: created.id,
      version: 2,
      created_at: created.created_at,
    });
    expect(new Date(updated.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.updated_at).getTime());
    expect((await call('GET', `/api/agents/${created.id}`)).body).toEqual(updated.body);

    const partial = await call('PUT', `/api/agents/${created.id}`, { config: { maxTurns: 7 } });
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual({
      ...updated.body,
      config: { ...updated.body.config, maxTurns: 7 },
      version: 3,
      updated_at: expect.stringMatching(ISO_TIME),
    });
  });

  it.each([
    ['an empty body', {}, 'body: Informe ao menos um de agent_name, description, tags, status, config'],
    ['only ignored keys', { id: 'x', version: 7 }, 'body: Informe ao menos um de agent_name, description, tags, status, config'],
    [
      '401 turns and a bad status',
      { status: 'on', config: { maxTurns: 501 } },
      'body.status: Opção inválida: esperava uma das seguintes opções: "active"|"inactive"; body.config.maxTurns: Grande demais: esperava que o número fosse <= 500',
    ],
    ['a null name', { agent_name: null }, 'body.agent_name: Entrada inválida: esperava um texto, recebeu um valor "nulo"'],
  ])('answers 400 to an update with %s and changes nothing', async (_case, body, message) => {
    const created = await createAgent(panelBody(uniqueName('Unchanged')));
    const answer = await call('PUT', `/api/agents/${created.id}`, body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect((await call('GET', `/api/agents/${created.id}`)).body).toEqual(created);
    expect(await count('agent_versions', created.id)).toBe(1);
  });

  it('refuses a rename to a taken name (409) and changes nothing', async () => {
    const taken = uniqueName('Taken');
    await createAgent(panelBody(taken));
    const agent = await createAgent(panelBody(uniqueName('Renamed')));
    const rename = await call('PUT', `/api/agents/${agent.id}`, panelBody(taken.toLowerCase()));
    expect(rename).toMatchObject({ status: 409, body: { error: `Já existe um agente chamado "${taken.toLowerCase()}"` } });
    expect((await call('GET', `/api/agents/${agent.id}`)).body).toEqual(agent);
    expect(await count('agent_versions', agent.id)).toBe(1);
  });

  it('delegates to another existing agent, never to itself; a deleted delegate leaves the agent delegating to none', async () => {
    const target = await createAgent(panelBody(uniqueName('Tech Lead')));
    const agent = await createAgent(panelBody(uniqueName('Dev'), { delegateTo: target.id }));
    expect(agent.config.delegateTo).toBe(target.id);

    const self = await call('PUT', `/api/agents/${agent.id}`, { config: { delegateTo: agent.id } });
    expect(self).toMatchObject({ status: 400, body: { error: `config.delegateTo: "${agent.id}" não é o id de outro agente` } });

    expect((await call('DELETE', `/api/agents/${target.id}`)).status).toBe(204);
    const after = await call('GET', `/api/agents/${agent.id}`);
    expect(after.body.config.delegateTo).toBe('');
    // The panel's next save sends '' again: stored as none.
    expect((await call('PUT', `/api/agents/${agent.id}`, panelBody(agent.agent_name))).body.config.delegateTo).toBe('');
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT delegate_to FROM agents WHERE id = ?', [agent.id]);
    expect(rows[0]).toEqual({ delegate_to: null });
  });

  it("gives a run the agent's system prompt, allowed tools, turn limit and permission mode", async () => {
    const agent = await createAgent(
      panelBody(uniqueName('Runner'), { allowedTools: ' Bash(git:*) ,, Read ', maxTurns: 0, permissionMode: '' }),
    );
    const stored = await findAgent(database.db, agent.id);
    expect(agentRunConfigOf(stored!)).toEqual({
      systemPrompt: 'Você é um revisor.\nSeja breve.',
      allowedTools: ['Bash(git:*)', 'Read'],
      maxTurns: 0,
      permissionMode: 'bypassPermissions',
    });
    const plain = await createAgent({ agent_name: uniqueName('Plain'), config: { maxTurns: 12, permissionMode: 'plan' } });
    expect(agentRunConfigOf((await findAgent(database.db, plain.id))!)).toEqual({ maxTurns: 12, permissionMode: 'plan' });
  });
});

describe('agents: config.timeout, the run time limit (issue 23)', () => {
  it('sets, shows, versions, exports and clears the limit; a bad one on update is 400 and changes nothing', async () => {
    const created = await createAgent(panelBody(uniqueName('Com limite')));
    const set = await call('PUT', `/api/agents/${created.id}`, { config: { timeout: 120_000 } });
    expect(set.status).toBe(200);
    expect(set.body.config).toMatchObject({ timeout: 120_000, maxTurns: created.config.maxTurns });
    expect(set.body.version).toBe(2);
    const versions = await call('GET', `/api/agents/${created.id}/versions`);
    expect(versions.body[0]).toMatchObject({ version: 2, changedFields: ['timeout'], config: { timeout: 120_000 } });
    const exported = await call('GET', `/api/agents/${created.id}/export`);
    expect(exported.body.config.timeout).toBe(120_000);

    const refused = await call('PUT', `/api/agents/${created.id}`, { config: { timeout: 0 } });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: 'body.config.timeout: Pequeno demais: esperava que o número fosse >= 1000' },
    });
    expect((await call('GET', `/api/agents/${created.id}`)).body).toMatchObject({ version: 2, config: { timeout: 120_000 } });

    const cleared = await call('PUT', `/api/agents/${created.id}`, { config: { timeout: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.config).not.toHaveProperty('timeout');
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT timeout_ms FROM agents WHERE id = ?', [created.id]);
    expect(rows[0]).toEqual({ timeout_ms: null });
  });
});

describe('agents: versions and restore (rows 15-16, contract 7.2)', () => {
  it('lists numbered versions newest first, each with its changes and the agent after them; restores one as a new version', async () => {
    const name = uniqueName('Versionado');
    const created = await createAgent(panelBody(name));
    const second = await call(
      'PUT',
      `/api/agents/${created.id}`,
      panelBody(name, { systemPrompt: 'Novo prompt', model: 'claude-opus-4-6' }),
    );
    const third = await call(
      'PUT',
      `/api/agents/${created.id}`,
      panelBody(name, { systemPrompt: 'Novo prompt', model: 'claude-opus-4-6' }, { tags: ['po'] }),
    );
    const unchanged = await call(
      'PUT',
      `/api/agents/${created.id}`,
      panelBody(name, { systemPrompt: 'Novo prompt', model: 'claude-opus-4-6' }, { tags: ['po'] }),
    );
    expect([second.status, third.status, unchanged.status]).toEqual([200, 200, 200]);

    const versions = await call('GET', `/api/agents/${created.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toEqual([
      {
        version: 4,
        changedAt: unchanged.body.updated_at,
        changelog: 'Atualizado (sem alterações)',
        changedFields: [],
        config: {},
        snapshot: unchanged.body,
      },
      {
        version: 3,
        changedAt: third.body.updated_at,
        changelog: 'Atualizado: tags',
        changedFields: ['tags'],
        config: {},
        snapshot: third.body,
      },
      {
        version: 2,
        changedAt: second.body.updated_at,
        changelog: 'Atualizado: model, systemPrompt',
        changedFields: ['model', 'systemPrompt'],
        config: { model: 'claude-opus-4-6', systemPrompt: 'Novo prompt' },
        snapshot: second.body,
      },
      { version: 1, changedAt: created.created_at, changelog: 'Criado', changedFields: [], config: {}, snapshot: created },
    ]);

    // Restore, body-less with a JSON content type (as the panel sends it).
    const restored = await call('POST', `/api/agents/${created.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ ...created, version: 5, updated_at: expect.stringMatching(ISO_TIME) });
    const after = await call('GET', `/api/agents/${created.id}/versions`);
    expect(after.body.map((item: any) => item.version)).toEqual([5, 4, 3, 2, 1]);
    expect(after.body[0]).toEqual({
      version: 5,
      changedAt: restored.body.updated_at,
      changelog: 'Restaurado para versão 1',
      changedFields: ['tags', 'model', 'systemPrompt'],
      config: { model: 'claude-sonnet-4-6', systemPrompt: 'Você é um revisor.\nSeja breve.' },
      snapshot: restored.body,
    });
    // Index 0 is the current state.
    expect(after.body[0].snapshot).toEqual((await call('GET', `/api/agents/${created.id}`)).body);
  });

  it('lists versions stored before changes were recorded with their changes computed, and restores them', async () => {
    // An agent and its versions as the service stored them before the panel's fields (migration 0013 defaults).
    const id = randomUUID();
    const name = uniqueName('Migrated');
    const at = [new Date('2026-11-01T10:00:00.000Z'), new Date('2026-11-02T10:00:00.000Z')];
    const v1 = {
      name,
      description: '',
      model: null,
      instructions: 'old',
      workingDirectory: null,
      permissionMode: 'bypassPermissions',
      maxTurns: 50,
    };
    const v2 = { ...v1, instructions: 'newer', maxTurns: 20 };
    await database.pool.query(
      'INSERT INTO agents (id, name, description, model, instructions, working_directory, permission_mode, max_turns, version, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, NULL, ?, ?, 2, ?, ?)',
      [id, name, '', 'newer', 'bypassPermissions', 20, at[0], at[1]],
    );
    await database.pool.query(
      "INSERT INTO agent_versions (agent_id, version, data, changelog, created_at) VALUES (?, 1, ?, 'created', ?), (?, 2, ?, 'updated', ?)",
      [id, JSON.stringify(v1), at[0], id, JSON.stringify(v2), at[1]],
    );

    const agent = await call('GET', `/api/agents/${id}`);
    expect(agent.body).toEqual({
      id,
      agent_name: name,
      description: '',
      tags: [],
      status: 'active',
      config: {
        // Stored before the CLI was a choice (migration 0028): Claude Code.
        cli: 'claude-code',
        systemPrompt: 'newer',
        model: '',
        workingDirectory: '',
        allowedTools: '',
        maxTurns: 20,
        permissionMode: 'bypassPermissions',
        retryOnFailure: false,
        maxRetries: 3,
        delegateTo: '',
      },
      version: 2,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00.000Z',
    });

    const versions = await call('GET', `/api/agents/${id}/versions`);
    expect(versions.body.map(({ snapshot: _snapshot, ...rest }: any) => rest)).toEqual([
      {
        version: 2,
        changedAt: '2026-11-02T10:00:00.000Z',
        changelog: 'updated',
        changedFields: ['systemPrompt', 'maxTurns'],
        config: { systemPrompt: 'newer', maxTurns: 20 },
      },
      { version: 1, changedAt: '2026-11-01T10:00:00.000Z', changelog: 'created', changedFields: [], config: {} },
    ]);
    expect(versions.body[0].snapshot).toEqual(agent.body);

    const restored = await call('POST', `/api/agents/${id}/versions/1/restore`);
    expect(restored).toMatchObject({
      status: 200,
      body: { version: 3, config: { systemPrompt: 'old', maxTurns: 50 }, tags: [], status: 'active' },
    });
  });

  it('answers 404 for an unknown version, 400 for a version that is not a positive integer; changes nothing', async () => {
    const agent = await createAgent(panelBody(uniqueName('Restorable')));
    expect(await call('POST', `/api/agents/${agent.id}/versions/9/restore`)).toMatchObject({
      status: 404,
      body: { error: `O agente ${agent.id} não tem a versão 9` },
    });
    for (const version of ['0', 'abc', '1.5']) {
      const answer = await call('POST', `/api/agents/${agent.id}/versions/${version}/restore`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^path: /);
    }
    expect(await count('agent_versions', agent.id)).toBe(1);
  });

  it('refuses a restore that would bring back a name another agent has taken since (409)', async () => {
    const original = uniqueName('Original name');
    const agent = await createAgent(panelBody(original));
    const renamed = await call('PUT', `/api/agents/${agent.id}`, { agent_name: uniqueName('Away') });
    await createAgent(panelBody(original));
    const restore = await call('POST', `/api/agents/${agent.id}/versions/1/restore`);
    expect(restore).toMatchObject({ status: 409, body: { error: `Já existe um agente chamado "${original}"` } });
    expect((await call('GET', `/api/agents/${agent.id}`)).body).toEqual(renamed.body);
  });

  it('numbers concurrent updates consecutively (one transaction per update)', async () => {
    const created = await createAgent(panelBody(uniqueName('Concurrent')));
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call('PUT', `/api/agents/${created.id}`, { config: { maxTurns: i + 1 } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(answers.map((answer) => answer.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const versions = await call('GET', `/api/agents/${created.id}/versions`);
    expect(versions.body.map((entry: any) => entry.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });
});

describe('agents: export, import, duplicate, delete (rows 5-8)', () => {
  it('exports the contract\'s object and imports it back under "<name> (importado)", then "(importado 2)"', async () => {
    const name = uniqueName('Exportado');
    const source = await createAgent(panelBody(name, { maxTurns: 30 }));

    const exported = await call('GET', `/api/agents/${source.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body).toEqual({
      agent_name: name,
      description: source.description,
      tags: source.tags,
      config: source.config,
      status: 'active',
    });

    const imported = await call('POST', '/api/agents/import', exported.body);
    expect(imported.status).toBe(201);
    expect(imported.body).toEqual({
      ...source,
      id: expect.stringMatching(UUID_V4),
      agent_name: `${name} (importado)`,
      created_at: expect.stringMatching(ISO_TIME),
      updated_at: expect.stringMatching(ISO_TIME),
    });
    expect(imported.body.id).not.toBe(source.id);
    expect((await call('GET', `/api/agents/${imported.body.id}/versions`)).body.map((item: any) => [item.version, item.changelog])).toEqual(
      [[1, 'Importado']],
    );

    expect((await call('POST', '/api/agents/import', exported.body)).body.agent_name).toBe(`${name} (importado 2)`);
    // With the name free, the import keeps it.
    expect((await call('DELETE', `/api/agents/${source.id}`)).status).toBe(204);
    expect((await call('POST', '/api/agents/import', exported.body)).body.agent_name).toBe(name);
  });

  it('imports what the legacy server exported (tasks, assigned_host) and drops a delegate that is no agent here', async () => {
    const name = uniqueName('Do legado');
    const legacy = {
      agent_name: name,
      description: 'legado',
      tags: ['x'],
      tasks: [],
      config: {
        model: 'claude-sonnet-4-6',
        systemPrompt: 'p',
        workingDirectory: '',
        maxTurns: 0,
        permissionMode: 'bypassPermissions',
        allowedTools: '',
        delegateTo: randomUUID(),
        timeout: 1000,
      },
      status: 'inactive',
      assigned_host: 'localhost',
    };
    const imported = await call('POST', '/api/agents/import', legacy);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      agent_name: name,
      status: 'inactive',
      tags: ['x'],
      config: {
        systemPrompt: 'p',
        permissionMode: 'bypassPermissions',
        delegateTo: '',
        retryOnFailure: false,
        maxRetries: 3,
        timeout: 1000,
      },
    });
  });

  it.each([
    ['under 1 s', 10, 1_000],
    ['over 24 h', 1e9, 86_400_000],
    ['in fractions of a ms', 1500.4, 1_500],
  ])('imports a config.timeout %s held to 1 s..24 h (import takes what was pasted)', async (_case, pasted, kept) => {
    const name = uniqueName('Limite importado');
    const imported = await call('POST', '/api/agents/import', panelBody(name, { timeout: pasted }));
    expect(imported.status).toBe(201);
    expect(imported.body.config.timeout).toBe(kept);
    // Create stays strict: the same body is refused there.
    expect((await call('POST', '/api/agents', panelBody(uniqueName('Limite criado'), { timeout: pasted }))).status).toBe(400);
  });

  it('imports the former export file of this service, its fields mapped', async () => {
    const name = uniqueName('Former export');
    const file = {
      format: 'agent-export',
      version: 1,
      exportedAt: '2026-11-21T15:00:00.000Z',
      agent: {
        name,
        description: 'd',
        model: null,
        instructions: 'Be brief.',
        workingDirectory: null,
        permissionMode: 'acceptEdits',
        maxTurns: 12,
      },
    };
    const imported = await call('POST', '/api/agents/import', file);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      agent_name: name,
      description: 'd',
      tags: [],
      status: 'active',
      config: {
        systemPrompt: 'Be brief.',
        model: '',
        workingDirectory: '',
        allowedTools: '',
        maxTurns: 12,
        permissionMode: 'acceptEdits',
        retryOnFailure: false,
        maxRetries: 3,
        delegateTo: '',
      },
    });
  });

  it.each([
    ['an empty object', {}, 'body.agent_name: Entrada inválida: esperava um texto, recebeu um valor "undefined"'],
    [
      'no agent_name',
      { description: 'x', config: {} },
      'body.agent_name: Entrada inválida: esperava um texto, recebeu um valor "undefined"',
    ],
    [
      'a bad config',
      { agent_name: 'X', config: { maxTurns: 1000 } },
      'body.config.maxTurns: Grande demais: esperava que o número fosse <= 500',
    ],
    [
      'a former file of another version',
      { format: 'agent-export', version: 2, agent: { name: 'X' } },
      'body.version: Versão de exportação não suportada (este serviço lê a versão 1 do formato antigo)',
    ],
    [
      'a former file without a name',
      { format: 'agent-export', version: 1, agent: { maxTurns: 3 } },
      'body.agent.name: Entrada inválida: esperava um texto, recebeu um valor "undefined"',
    ],
  ])('answers 400 {error} to an import of %s and creates nothing', async (_case, body, message) => {
    const before = { agents: await count('agents'), versions: await count('agent_versions') };
    const answer = await call('POST', '/api/agents/import', body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect({ agents: await count('agents'), versions: await count('agent_versions') }).toEqual(before);
  });

  it('duplicates an agent (body-less POST): "<name> (cópia)", then "(cópia 2)", active, config copied, versions from 1, no secrets', async () => {
    const name = uniqueName('Original');
    const source = await createAgent(panelBody(name, { maxTurns: 99 }, { status: 'inactive' }));
    await call('POST', `/api/agents/${source.id}/secrets`, { name: 'TOKEN', value: 'stays with the original' });

    const copy = await call('POST', `/api/agents/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toEqual({
      ...source,
      id: expect.stringMatching(UUID_V4),
      agent_name: `${name} (cópia)`,
      status: 'active',
      created_at: expect.stringMatching(ISO_TIME),
      updated_at: expect.stringMatching(ISO_TIME),
    });
    expect(copy.body.id).not.toBe(source.id);
    expect((await call('GET', `/api/agents/${copy.body.id}/versions`)).body.map((item: any) => [item.version, item.changelog])).toEqual([
      [1, `Duplicado de "${name}"`],
    ]);
    expect((await call('GET', `/api/agents/${copy.body.id}/secrets`)).body).toEqual([]);

    expect((await call('POST', `/api/agents/${source.id}/duplicate`)).body.agent_name).toBe(`${name} (cópia 2)`);
  });

  it('keeps a duplicate of a 100-character name within 100 characters', async () => {
    const name = `${'L'.repeat(90)}${String(++nameCounter).padStart(10, '0')}`;
    const source = await createAgent(panelBody(name));
    const copy = await call('POST', `/api/agents/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.agent_name).toBe(`${name.slice(0, 92)} (cópia)`);
    expect(copy.body.agent_name).toHaveLength(100);
  });

  it('deletes an agent (204, no body) with its versions and secrets; a second delete is 404', async () => {
    const agent = await createAgent(panelBody(uniqueName('Doomed')));
    await call('PUT', `/api/agents/${agent.id}`, { config: { maxTurns: 2 } });
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'GONE', value: 'soon' });
    expect([await count('agent_versions', agent.id), await count('agent_secrets', agent.id)]).toEqual([2, 1]);

    const deleted = await call('DELETE', `/api/agents/${agent.id}`);
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect((await call('GET', `/api/agents/${agent.id}`)).status).toBe(404);
    expect([await count('agents', agent.id), await count('agent_versions', agent.id), await count('agent_secrets', agent.id)]).toEqual([
      0, 0, 0,
    ]);
    expect(await call('DELETE', `/api/agents/${agent.id}`)).toMatchObject({
      status: 404,
      body: { error: `Agente não encontrado: ${agent.id}` },
    });
  });
});

describe('agents: secrets (rows 12-14)', () => {
  it('creates (201 {name, created}), replaces (200 {name, updated}), lists [{name, created_at}] without values, deletes (204)', async () => {
    const agent = await createAgent(panelBody(uniqueName('With secrets')));
    const token = 'sk-live-4f9a1c2e-Ação';
    expect(await call('GET', `/api/agents/${agent.id}/secrets`)).toMatchObject({ status: 200, body: [] });

    const first = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'API_TOKEN', value: token });
    expect(first).toMatchObject({ status: 201, body: { name: 'API_TOKEN', created: true } });
    expect(first.body).toEqual({ name: 'API_TOKEN', created: true });
    expect((await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'MY_KEY', value: 'with a space' })).status).toBe(201);
    // Names are case-sensitive, as environment variables.
    expect((await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'api_token', value: 'lower' })).status).toBe(201);

    const list = await call('GET', `/api/agents/${agent.id}/secrets`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { name: 'API_TOKEN', created_at: expect.stringMatching(ISO_TIME) },
      { name: 'MY_KEY', created_at: expect.stringMatching(ISO_TIME) },
      { name: 'api_token', created_at: expect.stringMatching(ISO_TIME) },
    ]);
    expect(list.text).not.toContain(token);

    const [rows] = await database.pool.query<RowDataPacket[]>(
      'SELECT ciphertext, iv, auth_tag FROM agent_secrets WHERE agent_id = ? AND name = ?',
      [agent.id, 'API_TOKEN'],
    );
    const row = rows[0] as { ciphertext: Buffer; iv: Buffer; auth_tag: Buffer };
    expect(row.ciphertext.includes(Buffer.from('sk-live'))).toBe(false);
    expect(row.ciphertext).toHaveLength(Buffer.byteLength(token));
    expect([row.iv.length, row.auth_tag.length]).toEqual([12, 16]);
    expect(await agentSecretsForRun(database.pool, agent.id, KEY)).toEqual({
      API_TOKEN: token,
      MY_KEY: 'with a space',
      api_token: 'lower',
    });

    const replaced = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'API_TOKEN', value: 'rotated' });
    expect(replaced).toMatchObject({ status: 200, body: { name: 'API_TOKEN', updated: true } });
    expect(replaced.body).toEqual({ name: 'API_TOKEN', updated: true });
    expect((await agentSecretsForRun(database.pool, agent.id, KEY)).API_TOKEN).toBe('rotated');
    expect(await count('agent_secrets', agent.id)).toBe(3);

    expect(await call('DELETE', `/api/agents/${agent.id}/secrets/MY_KEY`)).toMatchObject({ status: 204, text: '' });
    expect((await call('GET', `/api/agents/${agent.id}/secrets`)).body.map((secret: any) => secret.name)).toEqual([
      'API_TOKEN',
      'api_token',
    ]);
    expect(await call('DELETE', `/api/agents/${agent.id}/secrets/MY_KEY`)).toMatchObject({
      status: 404,
      body: { error: `O agente ${agent.id} não tem um segredo chamado "MY_KEY"` },
    });
  });

  it('deletes a name stored before names were checked (a slash, a space, a percent sign) when URL-encoded', async () => {
    const agent = await createAgent(panelBody(uniqueName('Odd names')));
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'ODD', value: 'v' });
    await database.pool.query("UPDATE agent_secrets SET name = 'a/b 100%' WHERE agent_id = ?", [agent.id]);
    expect((await call('DELETE', `/api/agents/${agent.id}/secrets/${encodeURIComponent('a/b 100%')}`)).status).toBe(204);
    expect(await count('agent_secrets', agent.id)).toBe(0);
  });

  it('gives a run no secrets for an agent without any, even without a key; refuses to decrypt without or with another key, or a row moved to another agent', async () => {
    const agent = await createAgent(panelBody(uniqueName('Run env')));
    expect(await agentSecretsForRun(database.pool, agent.id, null)).toEqual({});
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'TOKEN', value: 'v' });
    await expect(agentSecretsForRun(database.pool, agent.id, null)).rejects.toThrow(SecretsKeyMissingError);
    await expect(agentSecretsForRun(database.pool, agent.id, 'ab'.repeat(32))).rejects.toThrow(`o segredo "TOKEN" do agente ${agent.id}`);

    const other = await createAgent(panelBody(uniqueName('Thief')));
    await database.pool.query(
      'INSERT INTO agent_secrets (agent_id, name, ciphertext, iv, auth_tag, created_at) SELECT ?, name, ciphertext, iv, auth_tag, created_at FROM agent_secrets WHERE agent_id = ?',
      [other.id, agent.id],
    );
    await expect(agentSecretsForRun(database.pool, other.id, KEY)).rejects.toThrow(SecretDecryptionError);
  });

  it.each([
    ['no value', { name: 'A' }, 'body.value: Entrada inválida: esperava um texto, recebeu um valor "undefined"'],
    ['an empty value', { name: 'A', value: '' }, 'body.value: Pequeno demais: esperava que o texto tivesse >= 1 caracteres'],
    ['a name with "="', { name: 'A=B', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a space', { name: 'MY KEY', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a dash', { name: 'API-KEY', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name starting with a digit', { name: '1TOKEN', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with an accent', { name: 'SENHA_AÇÃO', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    [
      'a name of 129 characters',
      { name: 'A'.repeat(129), value: 'v' },
      'body.name: Grande demais: esperava que o texto tivesse <= 128 caracteres',
    ],
    [
      'a value of 32 769 characters',
      { name: 'A', value: 'v'.repeat(32_769) },
      'body.value: Grande demais: esperava que o texto tivesse <= 32768 caracteres',
    ],
    ['a value that is not text', { name: 'A', value: 42 }, 'body.value: Entrada inválida: esperava um texto, recebeu um número'],
    ['an unknown field', { name: 'A', value: 'v', note: 'x' }, 'body: Chave inválida: "note"'],
  ])('answers 400 {error} to a secret with %s and stores nothing', async (_case, body, message) => {
    const agent = await createAgent(panelBody(uniqueName('Secret bodies')));
    const answer = await call('POST', `/api/agents/${agent.id}/secrets`, body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect(await count('agent_secrets', agent.id)).toBe(0);
  });

  it('answers 503 naming AGENT_SECRETS_KEY when no key is configured, stores nothing, and still lists and deletes', async () => {
    const keyless = await startTestServer((base) => ({ ...base, orchestration: { ...base.orchestration, secretsKey: null } }));
    try {
      const agent = await createAgent(panelBody(uniqueName('Keyless')));
      await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'KEPT', value: 'v' });
      const refused = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'NEW', value: 'v' }, undefined, keyless.url);
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe(
        'Os segredos dos agentes não estão disponíveis: defina AGENT_SECRETS_KEY (64 caracteres hexadecimais) para gravá-los e lê-los',
      );
      expect(await count('agent_secrets', agent.id)).toBe(1);
      const listed = await call('GET', `/api/agents/${agent.id}/secrets`, undefined, undefined, keyless.url);
      expect(listed.body.map((secret: any) => secret.name)).toEqual(['KEPT']);
      expect((await call('DELETE', `/api/agents/${agent.id}/secrets/KEPT`, undefined, undefined, keyless.url)).status).toBe(204);
    } finally {
      await keyless.close();
    }
  });
});

describe('agents: bounds kept by the store', () => {
  /** A second server on the same database whose store keeps other bounds. */
  async function boundedServer(limits: Partial<typeof config.orchestration.limits>): Promise<TestServer> {
    return startTestServer((base) => ({
      ...base,
      orchestration: { ...base.orchestration, limits: { ...base.orchestration.limits, ...limits } },
    }));
  }

  it('refuses an agent beyond AGENTS_MAX with 409 (create, import and duplicate alike) and creates nothing', async () => {
    const before = await count('agents');
    const bounded = await boundedServer({ agents: before + 1 });
    try {
      const last = await call('POST', '/api/agents', panelBody(uniqueName('Last one')), undefined, bounded.url);
      expect(last.status).toBe(201);
      const message = `O serviço mantém no máximo ${before + 1} agentes: exclua um antes de criar outro`;
      const refusals = [
        await call('POST', '/api/agents', panelBody(uniqueName('One too many')), undefined, bounded.url),
        await call('POST', '/api/agents/import', { agent_name: uniqueName('Imported') }, undefined, bounded.url),
        await call('POST', `/api/agents/${last.body.id}/duplicate`, undefined, undefined, bounded.url),
      ];
      for (const refused of refusals) expect(refused).toMatchObject({ status: 409, body: { error: message } });
      expect(await count('agents')).toBe(before + 1);
      expect((await call('DELETE', `/api/agents/${last.body.id}`, undefined, undefined, bounded.url)).status).toBe(204);
      expect((await call('POST', '/api/agents', panelBody(uniqueName('Room again')), undefined, bounded.url)).status).toBe(201);
    } finally {
      await bounded.close();
    }
  });

  it('holds the bound exactly when creations race: of 8 at once with room for 3, 3 are created and 5 refused', async () => {
    const before = await count('agents');
    const bounded = await boundedServer({ agents: before + 3 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call('POST', '/api/agents', panelBody(uniqueName(`Racer ${i}`)), undefined, bounded.url)),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
      expect(await count('agents')).toBe(before + 3);
    } finally {
      await bounded.close();
    }
  });

  it('keeps the newest AGENT_VERSIONS_KEPT versions of an agent, pruning the oldest; a pruned version cannot be restored (404)', async () => {
    const bounded = await boundedServer({ versionsPerAgent: 3 });
    try {
      const agent = await createAgent({ agent_name: uniqueName('Pruned'), description: 'v1' });
      for (let version = 2; version <= 6; version++) {
        const updated = await call('PUT', `/api/agents/${agent.id}`, { description: `v${version}` }, undefined, bounded.url);
        expect(updated).toMatchObject({ status: 200, body: { version } });
      }
      const listed = await call('GET', `/api/agents/${agent.id}/versions`, undefined, undefined, bounded.url);
      expect(listed.body.map((item: any) => [item.version, item.snapshot.description, item.changedFields])).toEqual([
        [6, 'v6', ['description']],
        [5, 'v5', ['description']],
        [4, 'v4', ['description']],
      ]);
      expect(await call('POST', `/api/agents/${agent.id}/versions/2/restore`, undefined, undefined, bounded.url)).toMatchObject({
        status: 404,
        body: { error: `O agente ${agent.id} não tem a versão 2` },
      });
      const restored = await call('POST', `/api/agents/${agent.id}/versions/4/restore`, undefined, undefined, bounded.url);
      expect(restored).toMatchObject({ status: 200, body: { version: 7, description: 'v4' } });
      const after = await call('GET', `/api/agents/${agent.id}/versions`, undefined, undefined, bounded.url);
      expect(after.body.map((item: any) => item.version)).toEqual([7, 6, 5]);
    } finally {
      await bounded.close();
    }
  });
});
