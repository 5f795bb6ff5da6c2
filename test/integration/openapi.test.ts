import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type Router from '@koa/router';
import { hookRoutes } from '../../api/hook-routes';
import { PROBE_PATHS } from '../../api/probes';
import { openApiDocuments } from '../../api/openapi/catalog';
import type { OpenApiDocument } from '../../api/openapi/document';
import { schemaValidator } from '../support/openapi-conformance';
import { orchestrationApi } from '../../api/orchestration';
import { rankingApi } from '../../api/ranking';
import { repoRoot } from '../../lib/paths';
import { apiToolsBin } from '../support/api-tools';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The OpenAPI documents (docs/openapi.md): every route the routers register is described with each
 * of its methods and every described operation is routed; both documents pass openapi-spec-validator
 * and Redocly CLI's lint (redocly.yaml), and say who may call each operation;
 * they are served under each service's prefix with a reference page, and follow the token's rule; a
 * client generated from the orchestration document with openapi-typescript calls GET /api/agents.
 */

const run = promisify(execFile);
const TOKEN = 'an-openapi-test-token-0123456789';
const REDOCLY_CLI = path.join(repoRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const REDOCLY_IGNORE_FILE = '.redocly.lint-ignore.yaml';

/**
 * The JSON report of `redocly lint` on `file` with the redocly.yaml of `directory`, whatever its exit
 * code (1 when it finds an error). No usage data is sent and no update is looked for: nothing leaves
 * the machine (docs/openapi.md).
 */
async function redoclyLint(directory: string, file: string): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  try {
    const { stdout } = await run(process.execPath, [REDOCLY_CLI, 'lint', '--config', 'redocly.yaml', '--format', 'json', file], {
      cwd: directory,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (!stdout) throw error;
    return stdout;
  }
}

/** `METHOD /path/{param}` of every route a router registers (HEAD is GET's). */
function routesOf(router: Router): string[] {
  const routes = new Set<string>();
  for (const layer of router.stack) {
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      const routePath = String(layer.path)
        .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
        .replace(/(.)\/$/, '$1');
      routes.add(`${method} ${routePath}`);
    }
  }
  return [...routes].sort();
}

/** `METHOD /path` of every operation a router serves (the WebSocket's handshake is the WebSocket handler's). */
function describedIn(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([routePath, item]) =>
      Object.entries(item)
        .filter(([, operation]) => (operation as Record<string, unknown>)['x-websocket'] !== true)
        .map(([method]) => `${method.toUpperCase()} ${routePath}`),
    )
    .sort();
}

describe('the OpenAPI documents', () => {
  let server: TestServer;
  let guarded: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    guarded = await startTestServer((config) => ({ ...config, orchestration: { ...config.orchestration, authToken: TOKEN } }));
  });

  afterAll(async () => {
    await server?.close();
    await guarded?.close();
  });

  it('describes every route of each service, and routes every description', () => {
    const documents = openApiDocuments();
    // The probes answer before the routers, on their canonical path (api/probes.ts).
    const probes = PROBE_PATHS.map((probe) => `GET ${probe}`);
    const orchestration = [...routesOf(orchestrationApi(server.resources)), ...routesOf(hookRoutes(server.resources)), ...probes].sort();
    expect(describedIn(documents.orchestration)).toEqual(orchestration);
    expect(describedIn(documents.ranking)).toEqual(routesOf(rankingApi(server.resources)));
    // The WebSocket's handshake is described, as far as OpenAPI can say it.
    expect(documents.orchestration.paths['/ws']?.get).toMatchObject({
      operationId: 'openLiveOutputSocket',
      'x-websocket': true,
      responses: { 101: expect.any(Object) },
    });
    // The walk found the routers' routes (74 and 19 when this was written), not an empty list on both sides.
    expect(orchestration.length).toBeGreaterThan(70);
    expect(describedIn(documents.ranking).length).toBeGreaterThan(15);
  });

  it('gives every operation a unique operationId, a summary, tags and at least one success answer', () => {
    for (const document of Object.values(openApiDocuments())) {
      const ids = new Set<string>();
      for (const [routePath, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const where = `${method.toUpperCase()} ${routePath}`;
          expect({
            where,
            operationId: typeof operation.operationId,
            unique: !ids.has(operation.operationId),
            summary: typeof operation.summary,
          }).toEqual({ where, operationId: 'string', unique: true, summary: 'string' });
          ids.add(operation.operationId);
          expect({ where, success: Object.keys(operation.responses).some((status) => /^(2\d\d|101)$/.test(status)) }).toEqual({
            where,
            success: true,
          });
        }
      }
    }
  });

  it('gives examples that match their own schemas (bodies and answers)', () => {
    let checked = 0;
    for (const [name, document] of Object.entries(openApiDocuments()) as Array<['orchestration' | 'ranking', OpenApiDocument]>) {
      for (const [routePath, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item) as Array<[string, any]>) {
          const media: Array<[string[], any]> = [];
          for (const [type, content] of Object.entries(operation.requestBody?.content ?? {}))
            media.push([['requestBody', 'content', type], content]);
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            for (const [type, content] of Object.entries(response.content ?? {}))
              media.push([['responses', status, 'content', type], content]);
          }
          for (const [where, content] of media) {
            if (content.example === undefined || !where.includes('application/json')) continue;
            const validate = schemaValidator(name, 'paths', routePath, method, ...where, 'schema');
            const valid = validate(content.example);
            expect({ operation: operation.operationId, where, errors: valid ? null : validate.errors }).toEqual({
              operation: operation.operationId,
              where,
              errors: null,
            });
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('passes openapi-spec-validator (OpenAPI 3.1)', async () => {
    const bin = apiToolsBin();
    const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'openapi-'));
    try {
      for (const [name, document] of Object.entries(openApiDocuments())) {
        const file = path.join(directory, `${name}.json`);
        await fs.writeFile(file, JSON.stringify(document));
        const { stdout } = await run(path.join(bin, 'openapi-spec-validator'), [file]);
        expect(stdout.trim()).toBe(`${file}: OK`);
      }
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('passes Redocly CLI lint, its recommended rules (redocly.yaml), with no error or warning, its usage data and update check off', async () => {
    const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
    try {
      // The configuration beside the documents: the ignore file's places are relative to its folder.
      for (const file of ['redocly.yaml', REDOCLY_IGNORE_FILE]) await fs.copyFile(path.join(repoRoot, file), path.join(directory, file));
      const ignoreFile = parseYaml(await fs.readFile(path.join(repoRoot, REDOCLY_IGNORE_FILE), 'utf8')) as Record<
        string,
        Record<string, string[]>
      >;
      for (const [name, document] of Object.entries(openApiDocuments())) {
        await fs.writeFile(path.join(directory, `${name}.json`), JSON.stringify(document));
        const report = JSON.parse(await redoclyLint(directory, `${name}.json`)) as {
          totals: { errors: number; warnings: number; ignored: number };
          problems: Array<{ ruleId: string; message: string; location: Array<{ pointer?: string }> }>;
        };
        // Every place the ignore file lists still offends (its count), and nothing else does.
        expect({
          name,
          totals: report.totals,
          problems: report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`),
        }).toEqual({
          name,
          totals: { errors: 0, warnings: 0, ignored: Object.values(ignoreFile[`${name}.json`] ?? {}).flat().length },
          problems: [],
        });
      }
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('says every ranking operation is public (security: []), and who may call each orchestration one', () => {
    const { ranking, orchestration } = openApiDocuments();
    const securityOf = (document: OpenApiDocument) =>
      Object.entries(document.paths).flatMap(([routePath, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          where: `${method.toUpperCase()} ${routePath}`,
          security: operation.security,
        })),
      );
    for (const { where, security } of securityOf(ranking)) expect({ where, security }).toEqual({ where, security: [] });
    const token = [{ bearerToken: [] }, { panelSession: [] }];
    const publicOnes = ['GET /api/health', 'GET /livez', 'GET /readyz', 'POST /hook/{token}'];
    for (const { where, security } of securityOf(orchestration))
      expect({ where, security }).toEqual({ where, security: publicOnes.includes(where) ? [] : token });
  });

  it('serves each document and its reference page under its prefix, the assets with them', async () => {
    const documents = openApiDocuments();
    const orchestration = await fetch(`${server.url}/api/openapi.json`);
    expect(orchestration.status).toBe(200);
    expect(await orchestration.json()).toEqual(JSON.parse(JSON.stringify(documents.orchestration)));
    const ranking = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(ranking.status).toBe(200);
    expect(await ranking.json()).toEqual(JSON.parse(JSON.stringify(documents.ranking)));
    expect(documents.orchestration).toMatchObject({ openapi: '3.1.1', info: { version: expect.stringMatching(/^\d+\.\d+\.\d+$/) } });

    for (const [page, url] of [
      ['/api/docs', '/api/openapi.json'],
      ['/api/v1/docs', '/api/v1/openapi.json'],
    ]) {
      const answer = await fetch(`${server.url}${page}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await answer.text();
      expect(html).toContain(`data-url="${url}"`);
      // Nothing from elsewhere: every script and style is this service's.
      expect(html.match(/(?:src|href)="[^"]*"/g)).toEqual([
        'href="/docs-assets/favicon-32x32.png"',
        'href="/docs-assets/swagger-ui.css"',
        'src="/docs-assets/swagger-ui-bundle.js"',
        'src="/docs-assets/openapi-page.js"',
      ]);
    }
    for (const [asset, type] of [
      ['favicon-32x32.png', 'image/png'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
      ['openapi-page.js', 'application/javascript; charset=utf-8'],
    ]) {
      const answer = await fetch(`${server.url}/docs-assets/${asset}`);
      expect({ asset, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ asset, status: 200, type });
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await fetch(`${server.url}/docs-assets/index.html`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs-assets/../package.json`)).status).toBe(404);
  });

  it('asks for the token where the routes it describes do: /api yes, /api/v1 and the assets no', async () => {
    expect((await fetch(`${guarded.url}/api/openapi.json`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/docs`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${guarded.url}/api/v1/openapi.json`)).status).toBe(200);
    expect((await fetch(`${guarded.url}/api/v1/docs`)).status).toBe(200);
    expect((await fetch(`${guarded.url}/docs-assets/openapi-page.js`)).status).toBe(200);
  });

  it('answers a method no route takes (TRACE) with 405 in the envelope, not 501 (found by schemathesis)', async () => {
    for (const [route, body] of [
      ['/api/agents', { error: 'Método não permitido' }],
      ['/api/v1/ranking', { detail: 'Método não permitido' }],
      ['/hook/' + '0'.repeat(48), { error: 'Método não permitido' }],
    ] as const) {
      // fetch refuses to send TRACE: a plain HTTP request.
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(`${server.url}${route}`, { method: 'TRACE' }, (response) => {
          let text = '';
          response
            .setEncoding('utf8')
            .on('data', (chunk: string) => (text += chunk))
            .on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        request.on('error', reject).end();
      });
      expect({ route, status: answer.status, body: JSON.parse(answer.text) }).toEqual({ route, status: 405, body });
    }
  });

  it('generates a TypeScript client with openapi-typescript that calls GET /api/agents', async () => {
    const directory = await fs.mkdtemp(path.join(repoRoot, '.openapi-client-'));
    try {
      const documentFile = path.join(directory, 'orchestration.json');
      await fs.writeFile(documentFile, JSON.stringify(await (await fetch(`${server.url}/api/openapi.json`)).json()));
      await run(path.join(repoRoot, 'node_modules', '.bin', 'openapi-typescript'), [
        documentFile,
        '-o',
        path.join(directory, 'schema.d.ts'),
      ]);
      await fs.writeFile(
        path.join(directory, 'client.ts'),
        [
          "import createClient from 'openapi-fetch';",
          "import type { paths } from './schema';",
          'async function main(): Promise<void> {',
          '  const client = createClient<paths>({ baseUrl: process.argv[2] });',
          "  const { data, error, response } = await client.GET('/api/agents');",
          '  if (error !== undefined || data === undefined) throw new Error(`GET /api/agents: ${response.status}`);',
          // Typed: an agent's name is a string field of the generated type.
          '  const names: string[] = data.map((agent) => agent.agent_name);',
          '  console.log(JSON.stringify({ status: response.status, count: names.length }));',
          '}',
          'void main();',
          '',
        ].join('\n'),
      );
      await fs.writeFile(
        path.join(directory, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'commonjs',
            target: 'es2022',
            moduleResolution: 'node',
            esModuleInterop: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: ['client.ts'],
        }),
      );
      await run(path.join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', path.join(directory, 'tsconfig.json')]);
      const agents = (await (await fetch(`${server.url}/api/agents`)).json()) as unknown[];
      const { stdout } = await run(path.join(repoRoot, 'node_modules', '.bin', 'tsx'), [path.join(directory, 'client.ts'), server.url], {
        cwd: repoRoot,
      });
      expect(JSON.parse(stdout)).toEqual({ status: 200, count: agents.length });
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
