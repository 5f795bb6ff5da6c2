import type { RowDataPacket } from 'mysql2/promise';
import { SECRET_NAME_RULE } from '../../api/orchestration/agent-input';
import { agentSecretsForRun } from '../../api/orchestration/agents-routes';
import { createDatabase, type DatabaseHandle } from '../../db';
import { config } from '../../lib/config';
import { SecretDecryptionError, SecretsKeyMissingError } from '../../lib/secret-box';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
let database: DatabaseHandle;

const KEY = config.orchestration.secretsKey;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

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

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

async function call(method: string, path: string, body?: unknown, raw?: string, base = server.url): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text, headers: response.headers };
}

async function count(table: 'agents' | 'agent_versions' | 'agent_secrets', agentId?: string): Promise<number> {
  const where = agentId === undefined ? '' : ' WHERE ' + (table === 'agents' ? 'id' : 'agent_id') + ' = ?';
  const [rows] = await database.pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}${where}`, [agentId]);
  return Number(rows[0]?.n);
}

let nameCounter = 0;
const uniqueName = (stem: string) => `${stem} ${++nameCounter}`;

const fullData = (name: string) => ({
  name,
  description: 'Reviews pull requests',
  model: 'claude-sonnet-4-5',
  instructions: 'Read the diff.\nComment on naming — and on tests.',
  workingDirectory: '/home/projetos/reviewer',
  permissionMode: 'acceptEdits',
  maxTurns: 12,
});

async function createAgent(data: Record<string, unknown>) {
  const answer = await call('POST', '/api/agents', data);
  expect(answer.status).toBe(201);
  return answer.body;
}

describe('agents: create, read, list', () => {
  it('creates an agent with every field, reads it back and lists it', async () => {
    const data = fullData(uniqueName('Reviewer'));
    const created = await call('POST', '/api/agents', data);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_V4), ...data, version: 1, createdAt: expect.stringMatching(ISO_TIME), updatedAt: created.body.createdAt });
    expect(created.headers.get('location')).toBe(`/api/agents/${created.body.id}`);

    const read = await call('GET', `/api/agents/${created.body.id}`);
    expect(read).toMatchObject({ status: 200, body: created.body });

    const first = await createAgent({ name: uniqueName('AAA first by name') });
    const list = await call('GET', '/api/agents');
    expect(list.status).toBe(200);
    expect(list.body.find((agent: any) => agent.id === created.body.id)).toEqual(created.body);
    // Ordered by name: "AAA..." before "Reviewer...".
    const ids = list.body.map((agent: any) => agent.id);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(created.body.id));
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
  });

  it('fills the defaults: permission mode bypassPermissions, 50 turns, no model or directory (the settings decide)', async () => {
    const name = uniqueName('Minimal');
    const created = await createAgent({ name: `  ${name}  ` });
    expect(created).toMatchObject({
      name,
      description: '',
      model: null,
      instructions: '',
      workingDirectory: null,
      permissionMode: 'bypassPermissions',
      maxTurns: 50,
      version: 1,
    });
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT working_directory, permission_mode FROM agents WHERE id = ?', [created.id]);
    expect(rows[0]).toEqual({ working_directory: null, permission_mode: 'bypassPermissions' });
  });

  it('refuses a second agent with the same name, in any case (409), and creates nothing', async () => {
    const name = uniqueName('Unique');
    await createAgent({ name });
    const before = await count('agents');
    const conflict = await call('POST', '/api/agents', { name: name.toUpperCase() });
    expect(conflict).toMatchObject({ status: 409, body: { error: `an agent named "${name.toUpperCase()}" already exists` } });
    expect(await count('agents')).toBe(before);
  });

  it.each([
    ['no name', { description: 'x' }, 'body.name: Invalid input: expected string, received undefined'],
    ['a blank name', { name: '   ' }, 'body.name: Too small: expected string to have >=1 characters'],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'body.name: Too big: expected string to have <=100 characters'],
    ['0 turns', { name: 'T', maxTurns: 0 }, 'body.maxTurns: Too small: expected number to be >=1'],
    ['501 turns', { name: 'T', maxTurns: 501 }, 'body.maxTurns: Too big: expected number to be <=500'],
    ['fractional turns', { name: 'T', maxTurns: 1.5 }, 'body.maxTurns: Invalid input: expected int, received number'],
    ['turns as text', { name: 'T', maxTurns: '10' }, 'body.maxTurns: Invalid input: expected number, received string'],
    ['an unknown permission mode', { name: 'T', permissionMode: 'yolo' }, 'body.permissionMode: Invalid option: expected one of "default"|"acceptEdits"|"plan"|"bypassPermissions"'],
    ['a relative working directory', { name: 'T', workingDirectory: 'projects/x' }, 'body.workingDirectory: the working directory must be an absolute path (got "projects/x")'],
    ['a model that reads as an option', { name: 'T', model: '--dangerous' }, 'body.model: a model name: letters, digits and . _ : / @ [ ] - (at most 100)'],
    ['a snake_case field', { name: 'T', working_directory: '/tmp' }, 'body: Unrecognized key: "working_directory"'],
    ['an array', [{ name: 'T' }], 'body: Invalid input: expected object, received array'],
  ])('answers 400 to a body with %s and creates nothing', async (_case, body, message) => {
    const before = await count('agents');
    const answer = await call('POST', '/api/agents', body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect(await count('agents')).toBe(before);
  });

  it('answers 400 to a body that is not JSON and creates nothing', async () => {
    const before = await count('agents');
    const answer = await call('POST', '/api/agents', undefined, '{"name": ');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^invalid JSON body: /);
    expect(await count('agents')).toBe(before);
  });

  it('answers 404 with an error for an unknown agent on every per-agent route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/agents/${id}`],
      ['PUT', `/api/agents/${id}`, { maxTurns: 3 }],
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
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({ method, path, status: 404, body: { error: `agent ${id} not found` } });
    }
    expect(await count('agents')).toBe(before);
  });
});

describe('agents: update, versions, restore', () => {
  it('an update creates version 2 and keeps the old data in version 1; restoring 1 creates version 3 with its data', async () => {
    const data = fullData(uniqueName('Versioned'));
    const created = await createAgent(data);

    const updated = await call('PUT', `/api/agents/${created.id}`, { instructions: 'Only read the tests.', maxTurns: 40, model: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created, instructions: 'Only read the tests.', maxTurns: 40, model: null, version: 2, updatedAt: expect.stringMatching(ISO_TIME) });
    expect(await call('GET', `/api/agents/${created.id}`)).toMatchObject({ body: updated.body });

    const versions = await call('GET', `/api/agents/${created.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toEqual([
      { version: 2, createdAt: updated.body.updatedAt, data: { ...data, instructions: 'Only read the tests.', maxTurns: 40, model: null } },
      { version: 1, createdAt: created.createdAt, data },
    ]);

    const restored = await call('POST', `/api/agents/${created.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ ...created, version: 3, updatedAt: expect.stringMatching(ISO_TIME) });
    const after = await call('GET', `/api/agents/${created.id}/versions`);
    expect(after.body.map((entry: any) => entry.version)).toEqual([3, 2, 1]);
    expect(after.body[0].data).toEqual(after.body[2].data);
    expect(await count('agent_versions', created.id)).toBe(3);
  });

  it('numbers concurrent updates consecutively (one transaction per update)', async () => {
    const created = await createAgent({ name: uniqueName('Concurrent') });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call('PUT', `/api/agents/${created.id}`, { maxTurns: i + 1 })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(answers.map((answer) => answer.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const versions = await call('GET', `/api/agents/${created.id}/versions`);
    expect(versions.body.map((entry: any) => entry.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const last = answers.find((answer) => answer.body.version === 9);
    expect((await call('GET', `/api/agents/${created.id}`)).body.maxTurns).toBe(last?.body.maxTurns);
  });

  it.each([
    ['an empty body', {}, 'body: at least one agent field'],
    ['0 turns', { maxTurns: 0 }, 'body.maxTurns: Too small: expected number to be >=1'],
    ['a read-only field', { version: 7 }, 'body: Unrecognized key: "version"'],
    ['a null name', { name: null }, 'body.name: Invalid input: expected string, received null'],
  ])('answers 400 to an update with %s and changes nothing', async (_case, body, message) => {
    const created = await createAgent({ name: uniqueName('Unchanged') });
    const answer = await call('PUT', `/api/agents/${created.id}`, body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect((await call('GET', `/api/agents/${created.id}`)).body).toEqual(created);
    expect(await count('agent_versions', created.id)).toBe(1);
  });

  it('refuses a rename to a taken name (409) and a restore that would bring a taken name back; nothing changes', async () => {
    const taken = uniqueName('Taken');
    await createAgent({ name: taken });
    const original = uniqueName('Renamed');
    const agent = await createAgent({ name: original });

    const rename = await call('PUT', `/api/agents/${agent.id}`, { name: taken });
    expect(rename).toMatchObject({ status: 409, body: { error: `an agent named "${taken}" already exists` } });
    expect(await count('agent_versions', agent.id)).toBe(1);

    const renamedAway = await call('PUT', `/api/agents/${agent.id}`, { name: uniqueName('Away') });
    expect(renamedAway.body.version).toBe(2);
    const clash = await createAgent({ name: original });
    const restore = await call('POST', `/api/agents/${agent.id}/versions/1/restore`);
    expect(restore).toMatchObject({ status: 409, body: { error: `an agent named "${original}" already exists` } });
    expect((await call('GET', `/api/agents/${agent.id}`)).body).toEqual(renamedAway.body);
    expect(await count('agent_versions', agent.id)).toBe(2);
    expect(clash.name).toBe(original);
  });

  it('answers 404 for an unknown version and 400 for a version that is not a positive integer', async () => {
    const agent = await createAgent({ name: uniqueName('Restorable') });
    expect(await call('POST', `/api/agents/${agent.id}/versions/9/restore`)).toMatchObject({
      status: 404,
      body: { error: `agent ${agent.id} has no version 9` },
    });
    for (const version of ['0', 'abc', '1.5']) {
      const answer = await call('POST', `/api/agents/${agent.id}/versions/${version}/restore`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^path: /);
    }
    expect(await count('agent_versions', agent.id)).toBe(1);
  });
});

describe('agents: export, import, duplicate, delete', () => {
  it('exports an agent and imports it back as a new agent with the same data', async () => {
    const data = fullData(uniqueName('Exported'));
    const source = await createAgent(data);
    await call('PUT', `/api/agents/${source.id}`, { description: 'second version' });

    const exported = await call('GET', `/api/agents/${source.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="agent-${data.name.replace(' ', '-')}.json"`);
    expect(exported.body).toEqual({
      format: 'agent-export',
      version: 1,
      exportedAt: expect.stringMatching(ISO_TIME),
      agent: { ...data, description: 'second version' },
    });

    // The name is taken by the source: the import takes "<name> (imported)".
    const imported = await call('POST', '/api/agents/import', exported.body);
    expect(imported.status).toBe(201);
    expect(imported.body).toEqual({
      ...exported.body.agent,
      name: `${data.name} (imported)`,
      id: expect.stringMatching(UUID_V4),
      version: 1,
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: imported.body.createdAt,
    });
    expect(imported.body.id).not.toBe(source.id);
    expect((await call('GET', `/api/agents/${imported.body.id}/versions`)).body).toEqual([
      { version: 1, createdAt: imported.body.createdAt, data: { ...exported.body.agent, name: `${data.name} (imported)` } },
    ]);

    // With the name free again, the import keeps it.
    expect((await call('DELETE', `/api/agents/${source.id}`)).status).toBe(204);
    const again = await call('POST', '/api/agents/import', exported.body);
    expect(again.body.name).toBe(data.name);
  });

  it('imports a minimal file with the defaults', async () => {
    const name = uniqueName('Hand written');
    const imported = await call('POST', '/api/agents/import', { format: 'agent-export', version: 1, agent: { name } });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ name, permissionMode: 'bypassPermissions', maxTurns: 50, model: null, version: 1 });
  });

  it.each([
    ['an empty object', {}, 'body.format: Invalid input: expected "agent-export"'],
    ['a wrong format marker', { format: 'pipeline-export', version: 1, agent: { name: 'X' } }, 'body.format: Invalid input: expected "agent-export"'],
    ['another format version', { format: 'agent-export', version: 2, agent: { name: 'X' } }, 'body.version: unsupported export version (this service reads version 1)'],
    ['no agent', { format: 'agent-export', version: 1 }, 'body.agent: Invalid input: expected object, received undefined'],
    ['an agent without a name', { format: 'agent-export', version: 1, agent: { maxTurns: 3 } }, 'body.agent.name: Invalid input: expected string, received undefined'],
    ['an agent with 1000 turns', { format: 'agent-export', version: 1, agent: { name: 'X', maxTurns: 1000 } }, 'body.agent.maxTurns: Too big: expected number to be <=500'],
    ['an agent as exported by GET', { id: 'x', name: 'X', version: 1 }, 'body.format: Invalid input: expected "agent-export"'],
  ])('answers 400 to an import of %s and creates nothing', async (_case, body, message) => {
    const before = { agents: await count('agents'), versions: await count('agent_versions') };
    const answer = await call('POST', '/api/agents/import', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(message);
    expect({ agents: await count('agents'), versions: await count('agent_versions') }).toEqual(before);
  });

  it('duplicates an agent: new id, a distinct name, versions from 1, no secrets', async () => {
    const data = fullData(uniqueName('Original'));
    const source = await createAgent(data);
    await call('PUT', `/api/agents/${source.id}`, { maxTurns: 99 });
    await call('POST', `/api/agents/${source.id}/secrets`, { name: 'TOKEN', value: 'stays with the original' });

    const copy = await call('POST', `/api/agents/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toEqual({
      ...data,
      maxTurns: 99,
      name: `${data.name} (copy)`,
      id: expect.stringMatching(UUID_V4),
      version: 1,
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: copy.body.createdAt,
    });
    expect(copy.body.id).not.toBe(source.id);
    expect((await call('GET', `/api/agents/${copy.body.id}/versions`)).body.map((entry: any) => entry.version)).toEqual([1]);
    expect((await call('GET', `/api/agents/${copy.body.id}/secrets`)).body).toEqual([]);

    const second = await call('POST', `/api/agents/${source.id}/duplicate`);
    expect(second.body.name).toBe(`${data.name} (copy 2)`);
  });

  it('keeps a duplicate of a 100-character name within 100 characters', async () => {
    const name = `${'L'.repeat(90)}${String(++nameCounter).padStart(10, '0')}`;
    const source = await createAgent({ name });
    const copy = await call('POST', `/api/agents/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.name).toBe(`${name.slice(0, 93)} (copy)`);
    expect(copy.body.name).toHaveLength(100);
  });

  it('deletes an agent with its versions and secrets', async () => {
    const agent = await createAgent({ name: uniqueName('Doomed') });
    await call('PUT', `/api/agents/${agent.id}`, { maxTurns: 2 });
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'GONE', value: 'soon' });
    expect([await count('agent_versions', agent.id), await count('agent_secrets', agent.id)]).toEqual([2, 1]);

    const deleted = await call('DELETE', `/api/agents/${agent.id}`);
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect((await call('GET', `/api/agents/${agent.id}`)).status).toBe(404);
    expect([await count('agents', agent.id), await count('agent_versions', agent.id), await count('agent_secrets', agent.id)]).toEqual([0, 0, 0]);
    expect((await call('DELETE', `/api/agents/${agent.id}`)).status).toBe(404);
  });
});

describe('agents: secrets', () => {
  it('stores secrets encrypted, lists names only, hands them decrypted to a run, deletes by name', async () => {
    const agent = await createAgent({ name: uniqueName('With secrets') });
    const token = 'sk-live-4f9a1c2e-Ação';

    const first = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'API_TOKEN', value: token });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ name: 'API_TOKEN', createdAt: expect.stringMatching(ISO_TIME) });
    const spaced = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'MY_KEY', value: 'with a space' });
    expect(spaced.status).toBe(201);
    // Names are case-sensitive, as environment variables.
    expect((await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'api_token', value: 'lower' })).status).toBe(201);

    const list = await call('GET', `/api/agents/${agent.id}/secrets`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { name: 'API_TOKEN', createdAt: first.body.createdAt },
      { name: 'MY_KEY', createdAt: spaced.body.createdAt },
      { name: 'api_token', createdAt: expect.stringMatching(ISO_TIME) },
    ]);
    expect(list.text).not.toContain(token);

    const [rows] = await database.pool.query<RowDataPacket[]>(
      'SELECT ciphertext, iv, auth_tag FROM agent_secrets WHERE agent_id = ? AND name = ?',
      [agent.id, 'API_TOKEN'],
    );
    const row = rows[0] as { ciphertext: Buffer; iv: Buffer; auth_tag: Buffer };
    expect(row.ciphertext.equals(Buffer.from(token))).toBe(false);
    expect(row.ciphertext.includes(Buffer.from('sk-live'))).toBe(false);
    expect(row.ciphertext).toHaveLength(Buffer.byteLength(token));
    expect([row.iv.length, row.auth_tag.length]).toEqual([12, 16]);

    expect(await agentSecretsForRun(database.pool, agent.id, KEY)).toEqual({ API_TOKEN: token, MY_KEY: 'with a space', api_token: 'lower' });

    // Same name again: the value is replaced (200), still one row.
    const replaced = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'API_TOKEN', value: 'rotated' });
    expect(replaced).toMatchObject({ status: 200, body: { name: 'API_TOKEN', createdAt: expect.stringMatching(ISO_TIME) } });
    expect(replaced.text).not.toContain('rotated');
    expect((await agentSecretsForRun(database.pool, agent.id, KEY)).API_TOKEN).toBe('rotated');
    expect(await count('agent_secrets', agent.id)).toBe(3);

    const removed = await call('DELETE', `/api/agents/${agent.id}/secrets/MY_KEY`);
    expect(removed).toMatchObject({ status: 204, text: '' });
    expect((await call('GET', `/api/agents/${agent.id}/secrets`)).body.map((secret: any) => secret.name)).toEqual(['API_TOKEN', 'api_token']);
    expect(await call('DELETE', `/api/agents/${agent.id}/secrets/MY_KEY`)).toMatchObject({
      status: 404,
      body: { error: `agent ${agent.id} has no secret named "MY_KEY"` },
    });
    expect(await agentSecretsForRun(database.pool, agent.id, KEY)).toEqual({ API_TOKEN: 'rotated', api_token: 'lower' });
  });

  it('deletes a name stored before names were checked (a slash, a space, a percent sign) when URL-encoded', async () => {
    const agent = await createAgent({ name: uniqueName('Odd names') });
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'ODD', value: 'v' });
    await database.pool.query("UPDATE agent_secrets SET name = 'a/b 100%' WHERE agent_id = ?", [agent.id]);
    expect((await call('DELETE', `/api/agents/${agent.id}/secrets/${encodeURIComponent('a/b 100%')}`)).status).toBe(204);
    expect(await count('agent_secrets', agent.id)).toBe(0);
  });

  it('gives a run no secrets for an agent without any, even without a key; refuses to decrypt without or with another key', async () => {
    const agent = await createAgent({ name: uniqueName('Run env') });
    expect(await agentSecretsForRun(database.pool, agent.id, null)).toEqual({});
    await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'TOKEN', value: 'v' });
    await expect(agentSecretsForRun(database.pool, agent.id, null)).rejects.toThrow(SecretsKeyMissingError);
    await expect(agentSecretsForRun(database.pool, agent.id, 'ab'.repeat(32))).rejects.toThrow(SecretDecryptionError);
    await expect(agentSecretsForRun(database.pool, agent.id, 'ab'.repeat(32))).rejects.toThrow(`secret "TOKEN" of agent ${agent.id}`);
  });

  it('refuses a row moved to another agent: the ciphertext is bound to its agent and name', async () => {
    const one = await createAgent({ name: uniqueName('Owner') });
    const other = await createAgent({ name: uniqueName('Thief') });
    await call('POST', `/api/agents/${one.id}/secrets`, { name: 'TOKEN', value: 'mine' });
    await database.pool.query(
      'INSERT INTO agent_secrets (agent_id, name, ciphertext, iv, auth_tag, created_at) SELECT ?, name, ciphertext, iv, auth_tag, created_at FROM agent_secrets WHERE agent_id = ?',
      [other.id, one.id],
    );
    await expect(agentSecretsForRun(database.pool, other.id, KEY)).rejects.toThrow(SecretDecryptionError);
  });

  it.each([
    ['no value', { name: 'A' }, 'body.value: Invalid input: expected string, received undefined'],
    ['an empty value', { name: 'A', value: '' }, 'body.value: Too small: expected string to have >=1 characters'],
    ['a name with "="', { name: 'A=B', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a leading space', { name: ' A', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a newline', { name: 'A\nB', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    // Environment variable names only (the run's ENV_NAME), refused at creation rather than at run time.
    ['a name with a space', { name: 'MY KEY', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a dash', { name: 'API-KEY', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a dot', { name: 'api.key', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name starting with a digit', { name: '1TOKEN', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with an accent', { name: 'SENHA_AÇÃO', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name with a slash and a percent sign', { name: 'a/b 100%', value: 'v' }, `body.name: ${SECRET_NAME_RULE}`],
    ['a name of 129 characters', { name: 'A'.repeat(129), value: 'v' }, 'body.name: Too big: expected string to have <=128 characters'],
    ['a value that is not text', { name: 'A', value: 42 }, 'body.value: Invalid input: expected string, received number'],
    ['an unknown field', { name: 'A', value: 'v', note: 'x' }, 'body: Unrecognized key: "note"'],
  ])('answers 400 to a secret with %s and stores nothing', async (_case, body, message) => {
    const agent = await createAgent({ name: uniqueName('Secret bodies') });
    const answer = await call('POST', `/api/agents/${agent.id}/secrets`, body);
    expect(answer).toMatchObject({ status: 400, body: { error: message } });
    expect(await count('agent_secrets', agent.id)).toBe(0);
  });

  it('answers 503 naming AGENT_SECRETS_KEY when no key is configured, stores nothing, and still lists and deletes', async () => {
    const keyless = await startTestServer((base) => ({ ...base, orchestration: { ...base.orchestration, secretsKey: null } }));
    try {
      const agent = await createAgent({ name: uniqueName('Keyless') });
      await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'KEPT', value: 'v' });
      const refused = await call('POST', `/api/agents/${agent.id}/secrets`, { name: 'NEW', value: 'v' }, undefined, keyless.url);
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe('agent secrets are not available: set AGENT_SECRETS_KEY (64 hexadecimal characters) to store and read them');
      expect(await count('agent_secrets', agent.id)).toBe(1);
      const listed = await call('GET', `/api/agents/${agent.id}/secrets`, undefined, undefined, keyless.url);
      expect(listed.body.map((secret: any) => secret.name)).toEqual(['KEPT']);
      expect((await call('DELETE', `/api/agents/${agent.id}/secrets/KEPT`, undefined, undefined, keyless.url)).status).toBe(204);
    } finally {
      await keyless.close();
    }
  });

  it('answers 404 for an unknown secret name', async () => {
    const agent = await createAgent({ name: uniqueName('No such secret') });
    expect(await call('DELETE', `/api/agents/${agent.id}/secrets/NOPE`)).toMatchObject({
      status: 404,
      body: { error: `agent ${agent.id} has no secret named "NOPE"` },
    });
  });
});

describe('agents: bounds kept by the store', () => {
  /** A second server on the same database whose store keeps other bounds. */
  async function boundedServer(limits: Partial<typeof config.orchestration.limits>): Promise<TestServer> {
    return startTestServer((base) => ({ ...base, orchestration: { ...base.orchestration, limits: { ...base.orchestration.limits, ...limits } } }));
  }

  it('refuses an agent beyond AGENTS_MAX with 409 (create, import and duplicate alike) and creates nothing', async () => {
    const before = await count('agents');
    const bounded = await boundedServer({ agents: before + 1 });
    try {
      const last = await call('POST', '/api/agents', { name: uniqueName('Last one') }, undefined, bounded.url);
      expect(last.status).toBe(201);
      const message = `the service keeps at most ${before + 1} agents: delete one before creating another`;
      const refusals = [
        await call('POST', '/api/agents', { name: uniqueName('One too many') }, undefined, bounded.url),
        await call('POST', '/api/agents/import', { format: 'agent-export', version: 1, agent: { name: uniqueName('Imported') } }, undefined, bounded.url),
        await call('POST', `/api/agents/${last.body.id}/duplicate`, undefined, undefined, bounded.url),
      ];
      for (const refused of refusals) expect(refused).toMatchObject({ status: 409, body: { error: message } });
      expect(await count('agents')).toBe(before + 1);
      // Deleting one makes room again.
      expect((await call('DELETE', `/api/agents/${last.body.id}`, undefined, undefined, bounded.url)).status).toBe(204);
      expect((await call('POST', '/api/agents', { name: uniqueName('Room again') }, undefined, bounded.url)).status).toBe(201);
    } finally {
      await bounded.close();
    }
  });

  it('holds the bound exactly when creations race: of 8 at once with room for 3, 3 are created and 5 refused', async () => {
    const before = await count('agents');
    const bounded = await boundedServer({ agents: before + 3 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call('POST', '/api/agents', { name: uniqueName(`Racer ${i}`) }, undefined, bounded.url)),
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
      const agent = await createAgent({ name: uniqueName('Versioned'), description: 'v1' });
      for (let version = 2; version <= 6; version++) {
        const updated = await call('PUT', `/api/agents/${agent.id}`, { description: `v${version}` }, undefined, bounded.url);
        expect(updated).toMatchObject({ status: 200, body: { version } });
      }
      const listed = await call('GET', `/api/agents/${agent.id}/versions`, undefined, undefined, bounded.url);
      expect(listed.body.map((item: any) => [item.version, item.data.description])).toEqual([[6, 'v6'], [5, 'v5'], [4, 'v4']]);
      expect(await count('agent_versions', agent.id)).toBe(3);

      expect(await call('POST', `/api/agents/${agent.id}/versions/2/restore`, undefined, undefined, bounded.url)).toMatchObject({
        status: 404,
        body: { error: `agent ${agent.id} has no version 2` },
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
