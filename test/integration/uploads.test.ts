import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { count, eq, inArray } from 'drizzle-orm';
import { createExecution, finishExecution, getExecution } from '../../db/executions-store';
import { executions, uploads } from '../../db/schema';
import { agentIsolation } from '../../lib/agent-isolation';
import { removeExpiredUploads } from '../../services/uploads';
import { UPLOADS_RETENTION } from '../../temporal/uploads-retention-schedule';
import { agentGroupId } from '../support/agent-workspace';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { jsonCall } from '../support/json-api';

/**
 * POST /api/uploads and context files (contract 3.1, 3.13; docs/uploads.md), on the real stack: files
 * streamed to disk and recorded, refusals in JSON leaving nothing behind, an execute accepting only
 * this service's uploads, an agent of the real CLI (as its pool user) reading them through its Bash
 * tool against the stand-in model, and the retention removing old uploads.
 */

const MAX_FILE_BYTES = 10 * 1024 * 1024;

describe('uploads', () => {
  const uploadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uploads-test-'));
  let agents: RealAgents;
  let server: TestServer;
  const pipelines: string[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'uploads',
      maxConcurrent: 2,
      serve: async () => {
        const started = await startTestServer((config) => ({
          ...config,
          orchestration: { ...config.orchestration, uploads: { ...config.orchestration.uploads, dir: uploadsDir } },
        }));
        return { server: started, close: () => started.close() };
      },
    });
    ({ server } = agents);
  }, 60_000);

  afterAll(async () => {
    // Other suites list the pipelines: leave none behind.
    for (const id of pipelines) await call('DELETE', `/api/pipelines/${id}`);
    await agents?.close();
    fs.rmSync(uploadsDir, { recursive: true, force: true });
  });

  const db = () => server.resources.database.db;

  async function upload(files: Array<{ name: string; content: string | Uint8Array<ArrayBuffer> }>): Promise<{ status: number; body: any }> {
    const form = new FormData();
    for (const file of files) form.append('files', new Blob([file.content]), file.name);
    const response = await fetch(`${server.url}/api/uploads`, { method: 'POST', headers: { 'x-client-id': 'uploads-test' }, body: form });
    return { status: response.status, body: await response.json() };
  }

  const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

  async function uploadRows(): Promise<number> {
    const [row] = await db().select({ n: count() }).from(uploads);
    return row?.n ?? 0;
  }

  async function executionRows(): Promise<number> {
    const [row] = await db().select({ n: count() }).from(executions);
    return row?.n ?? 0;
  }

  /** Every entry under the uploads directory, recursively. */
  function onDisk(): string[] {
    return fs.readdirSync(uploadsDir, { recursive: true }).map(String).sort();
  }

  it('stores two files under <dir>/<sessionId>/<timestamp>-<name>, answers their paths and sizes, and records them', async () => {
    const answer = await upload([
      { name: 'notas.txt', content: 'primeira linha\n' },
      { name: '../../etc/.hidden name?.md', content: '# título\n' },
    ]);
    expect(answer.status).toBe(200);
    const { sessionId, files } = answer.body;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(files).toEqual([
      { originalName: 'notas.txt', path: expect.stringMatching(new RegExp(`^${uploadsDir}/${sessionId}/\\d{13}-notas\\.txt$`)), size: 15 },
      // busboy keeps only the last segment of the name; on disk: no leading dot, only letters, digits and ._-.
      {
        originalName: '.hidden name?.md',
        path: expect.stringMatching(new RegExp(`^${uploadsDir}/${sessionId}/\\d{13}-hidden_name_\\.md$`)),
        size: Buffer.byteLength('# título\n'),
      },
    ]);
    expect(fs.readFileSync(files[0].path, 'utf8')).toBe('primeira linha\n');
    expect(fs.readFileSync(files[1].path, 'utf8')).toBe('# título\n');
    const rows = await db().select().from(uploads).where(eq(uploads.batchId, sessionId));
    expect(
      rows
        .map(({ path: filePath, originalName, size, clientId }) => ({ path: filePath, originalName, size, clientId }))
        .sort((a, b) => a.path.localeCompare(b.path)),
    ).toEqual(files.map((file: any) => ({ ...file, clientId: 'uploads-test' })).sort((a: any, b: any) => a.path.localeCompare(b.path)));
    if (agentIsolation().mode === 'user-pool') {
      // The pool's group enters the directories and reads the files; nobody else does anything.
      const group = agentGroupId();
      const modeOf = (target: string) => ({ gid: fs.statSync(target).gid, mode: (fs.statSync(target).mode & 0o7777).toString(8) });
      expect([modeOf(uploadsDir), modeOf(path.dirname(files[0].path)), modeOf(files[0].path)]).toEqual([
        { gid: group, mode: '710' },
        { gid: group, mode: '750' },
        { gid: group, mode: '640' },
      ]);
    }
  });

  it('answers 413 in JSON for a file over 10 MB, leaving no file and no row (the smaller file before it included)', async () => {
    const [rowsBefore, diskBefore] = [await uploadRows(), onDisk()];
    const answer = await upload([
      { name: 'pequeno.txt', content: 'ok' },
      { name: 'grande.bin', content: new Uint8Array(MAX_FILE_BYTES + 1) },
      { name: 'maior.bin', content: new Uint8Array(MAX_FILE_BYTES + 3 * 1024 * 1024) },
    ]);
    expect(answer).toEqual({ status: 413, body: { error: `grande.bin é maior que o limite de ${MAX_FILE_BYTES} bytes por arquivo` } });
    expect(await uploadRows()).toBe(rowsBefore);
    expect(onDisk()).toEqual(diskBefore);
  });

  it('accepts a file of exactly 10 MB', async () => {
    const answer = await upload([{ name: 'limite.bin', content: new Uint8Array(MAX_FILE_BYTES) }]);
    expect(answer.status).toBe(200);
    expect(answer.body.files).toEqual([{ originalName: 'limite.bin', path: expect.any(String), size: MAX_FILE_BYTES }]);
    expect(fs.statSync(answer.body.files[0].path).size).toBe(MAX_FILE_BYTES);
  });

  it('answers 400 in JSON for 21 files, for no file, for another part and for a body that is not multipart, leaving nothing', async () => {
    const [rowsBefore, diskBefore] = [await uploadRows(), onDisk()];
    const many = Array.from({ length: 21 }, (_, index) => ({ name: `f${index}.txt`, content: `file ${index}` }));
    expect(await upload(many)).toEqual({ status: 400, body: { error: 'Arquivos demais: no máximo 20 por envio' } });
    expect(await upload([])).toEqual({
      status: 400,
      body: { error: 'Nenhum arquivo: envie-os como partes multipart/form-data chamadas "files"' },
    });
    const form = new FormData();
    form.append('other', new Blob(['x']), 'x.txt');
    const other = await fetch(`${server.url}/api/uploads`, { method: 'POST', body: form });
    expect({ status: other.status, body: await other.json() }).toEqual({
      status: 400,
      body: { error: 'Parte inesperada "other": os arquivos vão em partes chamadas "files"' },
    });
    expect(await call('POST', '/api/uploads', { files: [] })).toEqual({
      status: 400,
      body: { error: 'O corpo deve ser multipart/form-data, com os arquivos em partes chamadas "files"' },
    });
    expect(await uploadRows()).toBe(rowsBefore);
    expect(onDisk()).toEqual(diskBefore);
  });

  it('answers 400 for a part without a name (a field or a file) and keeps serving (found by schemathesis: it ended the process)', async () => {
    const [rowsBefore, diskBefore] = [await uploadRows(), onDisk()];
    const boundary = 'fronteira-sem-nome';
    const bodies = [
      `--${boundary}\r\nContent-Disposition: form-data; name=""\r\n\r\nnull\r\n--${boundary}--\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name=""; filename="a.txt"\r\n\r\nhello\r\n--${boundary}--\r\n`,
    ];
    const expected = [
      { status: 400, body: { error: 'Campo inesperado "": somente arquivos, em partes chamadas "files"' } },
      { status: 400, body: { error: 'Parte inesperada "": os arquivos vão em partes chamadas "files"' } },
    ];
    for (const [index, body] of bodies.entries()) {
      const answer = await fetch(`${server.url}/api/uploads`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
      });
      expect({ status: answer.status, body: await answer.json() }).toEqual(expected[index]);
    }
    expect((await upload([{ name: 'depois.txt', content: 'ainda de pé' }])).status).toBe(200);
    expect(await uploadRows()).toBe(rowsBefore + 1);
    expect(onDisk().length).toBeGreaterThan(diskBefore.length);
  });

  it('removes what was written of a request the client abandons mid-file', async () => {
    const [rowsBefore, diskBefore] = [await uploadRows(), onDisk()];
    const boundary = 'abandoned-upload-boundary';
    const request = http.request(`${server.url}/api/uploads`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    request.on('error', () => undefined);
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="metade.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    request.write(Buffer.alloc(1024 * 1024, 1));
    // The partial file is on disk while the body still arrives.
    await until(
      'the partial file',
      async () => onDisk().length,
      (entries) => entries > diskBefore.length + 1,
    );
    request.destroy();
    await until(
      'the partial file removed',
      async () => onDisk(),
      (entries) => entries.length === diskBefore.length,
    );
    expect(onDisk()).toEqual(diskBefore);
    expect(await uploadRows()).toBe(rowsBefore);
  });

  it('refuses an execute whose context file is not an upload of this service, starting nothing', async () => {
    const agent = await agents.standInAgent('recusa');
    const stray = path.join(uploadsDir, 'stray.txt');
    fs.writeFileSync(stray, 'not uploaded');
    const pipeline = await call('POST', '/api/pipelines', { name: `uploads-refusal ${Date.now()}`, steps: [{ agentId: agent.id }] });
    expect(pipeline.status).toBe(201);
    pipelines.push(pipeline.body.id);
    const before = await executionRows();
    const uploaded = (await upload([{ name: 'real.txt', content: 'real' }])).body.files[0];
    const cases: Array<[string, unknown, string]> = [
      [
        `/api/agents/${agent.id}/execute`,
        { task: 'x', contextFiles: [{ originalName: 'passwd', path: '/etc/passwd', size: 1 }] },
        'O arquivo de contexto /etc/passwd não é um envio deste serviço (POST /api/uploads)',
      ],
      [
        `/api/agents/${agent.id}/execute`,
        { task: 'x', contextFiles: [uploaded, { originalName: 'stray.txt', path: stray, size: 12 }] },
        `O arquivo de contexto ${stray} não é um envio deste serviço (POST /api/uploads)`,
      ],
      [
        `/api/pipelines/${pipeline.body.id}/execute`,
        { input: 'x', contextFiles: [{ originalName: 'passwd', path: '/etc/passwd', size: 1 }] },
        'O arquivo de contexto /etc/passwd não é um envio deste serviço (POST /api/uploads)',
      ],
      [
        `/api/agents/${agent.id}/execute`,
        { task: 'x', contextFiles: Array.from({ length: 21 }, () => uploaded) },
        'body.contextFiles: No máximo 20 arquivos de contexto',
      ],
    ];
    for (const [route, body, error] of cases) expect(await call('POST', route, body)).toEqual({ status: 400, body: { error } });
    // A stored upload whose file is gone.
    fs.rmSync(uploaded.path);
    expect(await call('POST', `/api/agents/${agent.id}/execute`, { task: 'x', contextFiles: [uploaded] })).toEqual({
      status: 400,
      body: { error: `O arquivo de contexto ${uploaded.path} não está mais disponível: envie-o de novo` },
    });
    expect(await executionRows()).toBe(before);
  });

  it('names the files in the prompt; the agent (real CLI, its pool user) reads them with its Bash tool and the content reaches the result', async () => {
    const agent = await agents.standInAgent('leitor');
    const { files } = (
      await upload([
        { name: 'alfa.txt', content: 'conteudo-alfa-7f3' },
        { name: 'beta.md', content: 'conteudo-beta-91c' },
      ])
    ).body;
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, {
      task: 'stand-in:read-files',
      instructions: '',
      contextFiles: files,
    });
    expect(answer.status).toBe(202);
    const done = await until(
      'the run',
      () => call('GET', `/api/executions/history/${answer.body.executionId}`),
      (view) => !['queued', 'running'].includes(view.body.status),
      120_000,
    );
    const task = `stand-in:read-files\n\nArquivos de contexto:\n- ${files[0].path} (alfa.txt)\n- ${files[1].path} (beta.md)`;
    expect(done.body).toMatchObject({ status: 'completed', task });
    // cat prints both files one after the other (neither ends in a newline).
    expect(done.body.result).toBe('Read the files: conteudo-alfa-7f3conteudo-beta-91c');
    const record = await getExecution(db(), answer.body.executionId);
    expect(record?.contextFiles).toEqual(files);
  }, 150_000);

  it("a pipeline names the files in its first step's prompt and keeps them in the run", async () => {
    const agent = await agents.standInAgent('leitor-pipeline');
    const pipeline = await call('POST', '/api/pipelines', {
      name: `uploads ${Date.now()}`,
      steps: [{ agentId: agent.id, inputTemplate: '{{input}}' }],
    });
    pipelines.push(pipeline.body.id);
    const { files } = (await upload([{ name: 'gama.txt', content: 'conteudo-gama-55e' }])).body;
    const started = await call('POST', `/api/pipelines/${pipeline.body.id}/execute`, { input: 'stand-in:read-files', contextFiles: files });
    expect(started.status).toBe(202);
    const done = await until(
      'the run',
      () => call('GET', `/api/executions/history/${started.body.executionId}`),
      (view) => !['queued', 'running'].includes(view.body.status),
      120_000,
    );
    expect(done.body).toMatchObject({
      status: 'completed',
      task: `stand-in:read-files\n\nArquivos de contexto:\n- ${files[0].path} (gama.txt)`,
    });
    expect(done.body.result).toBe('Read the files: conteudo-gama-55e');
    expect((await getExecution(db(), started.body.executionId))?.contextFiles).toEqual(files);
  }, 150_000);

  it('retention removes uploads older than the period (file, directory, row), but not one an active execution names', async () => {
    const [old, named, recent] = [
      (await upload([{ name: 'velho.txt', content: 'old' }])).body,
      (await upload([{ name: 'em-uso.txt', content: 'in use' }])).body,
      (await upload([{ name: 'novo.txt', content: 'new' }])).body,
    ];
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000);
    await db()
      .update(uploads)
      .set({ createdAt: twoDaysAgo })
      .where(inArray(uploads.batchId, [old.sessionId, named.sessionId]));
    // A queued record naming one of them (no workflow: it is ended below).
    const queued = await createExecution(db(), {
      kind: 'agent',
      agentId: null,
      agentName: 'retention',
      source: 'manual',
      task: 'x',
      instructions: '',
      workingDirectory: '/tmp',
      model: 'm',
      contextFiles: named.files,
    });
    try {
      const pass = await removeExpiredUploads({ db: db(), logger: server.resources.logger }, 24);
      expect(pass).toEqual({ removed: 1, kept: 1 });
      expect(fs.existsSync(old.files[0].path)).toBe(false);
      expect(fs.existsSync(path.dirname(old.files[0].path))).toBe(false);
      expect(fs.existsSync(named.files[0].path)).toBe(true);
      expect(fs.existsSync(recent.files[0].path)).toBe(true);
      const left = await db()
        .select({ batchId: uploads.batchId })
        .from(uploads)
        .where(inArray(uploads.batchId, [old.sessionId, named.sessionId, recent.sessionId]));
      expect(left.map((row) => row.batchId).sort()).toEqual([named.sessionId, recent.sessionId].sort());
    } finally {
      await finishExecution(db(), queued.id, { status: 'canceled', error: 'teste' });
    }
    // Once no active execution names it, the Schedule's pass (run now, by the agents worker) removes it.
    await server.resources.temporal.client.schedule.getHandle(UPLOADS_RETENTION.scheduleId).trigger();
    await until(
      'the scheduled pass',
      async () => (await db().select().from(uploads).where(eq(uploads.batchId, named.sessionId))).length,
      (n) => n === 0,
    );
    expect(fs.existsSync(named.files[0].path)).toBe(false);
    expect(fs.existsSync(recent.files[0].path)).toBe(true);
  });
});
