import { execFile, type ExecFileOptions } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import mysql from 'mysql2/promise';
import { migrateDatabase } from '../../db/migrate';
import type { Config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { ensureNamespace } from '../../temporal/namespace';
import { ensureSearchAttributes } from '../../temporal/search-attributes';
import { apiToolsBin } from '../support/api-tools';
import { startTestServer, type TestServer } from '../support/server';

/**
 * schemathesis (PyPI) attacks both services from their OpenAPI documents on the real stack
 * (docs/openapi.md "Fuzzing"): not_a_server_error, status_code_conformance, content_type_conformance,
 * response_schema_conformance and negative_data_rejection, with the examples, coverage, fuzzing and
 * stateful phases, a bounded number of cases per operation (test/schemathesis.toml). Whatever it
 * creates, changes or deletes stays in data of its own: a database, a Redis prefix, a Temporal
 * namespace (no worker polls it: a run it starts is accepted and stays queued) and a working area,
 * all dropped or ended afterwards.
 */

const FUZZ_DATABASE = 'consultores_fuzz';
const FUZZ_NAMESPACE = 'fuzz';
/** One seed, printed: a failure replays with the same cases. */
const SEED = 20261127;

/** Runs a tool to its end: its output and exit code, never a throw. */
function runTool(file: string, args: string[], options: ExecFileOptions): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(file, args, options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ stdout: String(stdout), stderr: String(stderr), code });
    });
  });
}

describe('schemathesis against both OpenAPI documents', () => {
  let server: TestServer;
  let workArea: string;
  let temporal: Client;
  let connection: Connection;

  beforeAll(async () => {
    workArea = await fs.mkdtemp(path.join(os.tmpdir(), 'fuzz-'));
    const { config } = await import('../../lib/config');
    const mysqlConfig = { ...config.mysql, database: FUZZ_DATABASE };
    const admin = await mysql.createConnection({ host: mysqlConfig.host, port: mysqlConfig.port, user: mysqlConfig.user, password: mysqlConfig.password });
    await admin.query(`DROP DATABASE IF EXISTS ${FUZZ_DATABASE}`);
    await admin.end();
    await migrateDatabase(mysqlConfig);
    await ensureNamespace(config.temporal.address, FUZZ_NAMESPACE);
    connection = await Connection.connect({ address: config.temporal.address });
    await ensureSearchAttributes(connection, FUZZ_NAMESPACE);
    temporal = new Client({ connection, namespace: FUZZ_NAMESPACE });
    const unlimited = { requests: 1_000_000, windowSeconds: 60 };
    server = await startTestServer(
      (base: Config): Config => ({
        ...base,
        mysql: mysqlConfig,
        redis: { ...base.redis, keyPrefix: `fuzz-${process.pid}:` },
        temporal: { ...base.temporal, namespace: FUZZ_NAMESPACE },
        ranking: { ...base.ranking, jobRateLimit: unlimited },
        pdf: { ...base.pdf, rateLimit: unlimited },
        orchestration: {
          ...base.orchestration,
          authToken: null,
          rateLimit: unlimited,
          webhooks: { ...base.orchestration.webhooks, rateLimit: unlimited },
          dataDir: path.join(workArea, 'data'),
          reportsDir: path.join(workArea, 'data', 'reports'),
          uploads: { ...base.orchestration.uploads, dir: path.join(workArea, 'data', 'uploads') },
          workdirRoots: [path.join(workArea, 'work')],
          repositories: { ...base.orchestration.repositories, mirrorsDir: path.join(workArea, 'data', 'mirrors') },
        },
      }),
    );
    await fs.mkdir(path.join(workArea, 'work'), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    // Runs and jobs it started wait for a worker that never comes: ended, so the namespace holds nothing open.
    if (temporal !== undefined) {
      // Schedules it created would fire for ever in the namespace.
      for await (const schedule of temporal.schedule.list()) await temporal.schedule.getHandle(schedule.scheduleId).delete();
      for await (const workflow of temporal.workflow.list({ query: "ExecutionStatus='Running'" })) {
        await temporal.workflow.getHandle(workflow.workflowId, workflow.runId).terminate('the fuzzing ended').catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
      }
    }
    await connection?.close();
    await fs.rm(workArea, { recursive: true, force: true });
  }, 120_000);

  for (const [service, documentPath] of [['ranking', '/api/v1/openapi.json'], ['orchestration', '/api/openapi.json']] as const) {
    it(`finds no failure in the ${service} service`, async () => {
      const report = path.join(workArea, `${service}.xml`);
      const args = [
        '--config-file', path.join(repoRoot, 'test', 'schemathesis.toml'),
        'run', `${server.url}${documentPath}`,
        '--url', server.url,
        '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection',
        '--phases', 'examples,coverage,fuzzing,stateful',
        '--seed', String(SEED),
        '--workers', '2',
        '--report', 'junit', '--report-junit-path', report,
        '--no-color',
      ];
      const result = await runTool(path.join(apiToolsBin(), 'st'), args, { cwd: workArea, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false' } });
      const xml = await fs.readFile(report, 'utf8').catch(() => '');
      const cases = Number(/<testsuites[^>]*\btests="(\d+)"/.exec(xml)?.[1] ?? 0);
      const failures = Number(/<testsuites[^>]*\bfailures="(\d+)"/.exec(xml)?.[1] ?? -1);
      const errors = Number(/<testsuites[^>]*\berrors="(\d+)"/.exec(xml)?.[1] ?? -1);
      const summary = result.stdout.split('\n').slice(-60).join('\n');
      // The whole output when it fails: the cases to replay are in it.
      expect({ code: result.code, failures, errors, output: result.code === 0 ? 'ok' : `${result.stdout}\n${result.stderr}` }).toEqual({ code: 0, failures: 0, errors: 0, output: 'ok' });
      expect(cases).toBeGreaterThan(service === 'ranking' ? 15 : 80);
      process.stdout.write(`schemathesis ${service} (seed ${SEED}): ${cases} operations\n${summary}\n`);
    }, 20 * 60_000);
  }
});
