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
import { logger } from '../../lib/logger';
import { rankingJobStartOptions } from '../../temporal/ranking-job';
import { RANKING_JOB_WORKFLOW, type RankingJobWorkflow } from '../../temporal/contracts/ranking-job';
import { startRankingWorker } from '../../workers/ranking';
import { openApiDocuments } from '../../api/openapi/catalog';
import { apiToolsBin } from '../support/api-tools';
import { SEED_DATE } from '../support/ranking';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { generatePersons } from '../../scripts/generate-persons';
import { startTestServer, type TestServer } from '../support/server';
import { connectTemporal } from '../../temporal/connection';

/**
 * schemathesis (PyPI) attacks both services from their OpenAPI documents on the real stack
 * (docs/openapi.md "Fuzzing"): not_a_server_error, status_code_conformance, content_type_conformance,
 * response_schema_conformance and negative_data_rejection, with the examples, coverage, fuzzing and
 * stateful phases, a bounded number of cases per operation (test/schemathesis.toml). Whatever it
 * creates, changes or deletes stays in data of its own: a database, a Redis prefix, a person index
 * (a processed ranking of 300 persons, so the reads answer with data), a Temporal namespace (no worker polls it: a run it starts is accepted and stays queued) and a working area,
 * all dropped or ended afterwards.
 */

const FUZZ_DATABASE = 'consultores_fuzz';
const FUZZ_NAMESPACE = 'fuzz';
/** One seed, printed: a failure replays with the same cases. */
const SEED = 20261127;
/** Persons in the processed ranking the reads are fuzzed on. */
const RANKING_PERSONS = 300;

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
    const admin = await mysql.createConnection({
      host: mysqlConfig.host,
      port: mysqlConfig.port,
      user: mysqlConfig.user,
      password: mysqlConfig.password,
    });
    await admin.query(`DROP DATABASE IF EXISTS ${FUZZ_DATABASE}`);
    await admin.end();
    await migrateDatabase(mysqlConfig);
    await ensureNamespace(config.temporal, FUZZ_NAMESPACE);
    connection = await connectTemporal(config.temporal);
    await ensureSearchAttributes(connection, FUZZ_NAMESPACE);
    temporal = new Client({ connection, namespace: FUZZ_NAMESPACE });
    const unlimited = { requests: 1_000_000, windowSeconds: 60 };
    const fuzzConfig: Config = {
      ...config,
      mysql: mysqlConfig,
      redis: { ...config.redis, keyPrefix: `fuzz-${process.pid}:` },
      elasticsearch: { ...config.elasticsearch, indexPrefix: `${config.elasticsearch.indexPrefix}fuzz-` },
      temporal: { ...config.temporal, namespace: FUZZ_NAMESPACE },
      ranking: { ...config.ranking, jobRateLimit: unlimited },
      pdf: { ...config.pdf, rateLimit: unlimited },
      orchestration: {
        ...config.orchestration,
        authToken: null,
        rateLimit: unlimited,
        webhooks: { ...config.orchestration.webhooks, rateLimit: unlimited },
        dataDir: path.join(workArea, 'data'),
        reportsDir: path.join(workArea, 'data', 'reports'),
        uploads: { ...config.orchestration.uploads, dir: path.join(workArea, 'data', 'uploads') },
        workdirRoots: [path.join(workArea, 'work')],
        repositories: { ...config.orchestration.repositories, mirrorsDir: path.join(workArea, 'data', 'mirrors') },
      },
    };
    // A processed ranking, so the reads answer with data (unprocessed, they answer 503 by contract):
    // the job runs once on a worker of the namespace, stopped before the fuzzing starts.
    const es = createElasticsearch(fuzzConfig.elasticsearch);
    try {
      await generatePersons({
        es,
        index: indexName(fuzzConfig.elasticsearch, PERSON_INDEX_BASE),
        count: RANKING_PERSONS,
        seed: 5,
        recreate: true,
        referenceDate: SEED_DATE,
      });
    } finally {
      await es.close();
    }
    const worker = await startRankingWorker(fuzzConfig, logger);
    try {
      await temporal.workflow.execute<RankingJobWorkflow>(RANKING_JOB_WORKFLOW, rankingJobStartOptions({}));
    } finally {
      await worker.stop();
    }
    server = await startTestServer(() => fuzzConfig);
    await fs.mkdir(path.join(workArea, 'work'), { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    // Runs and jobs it started wait for a worker that never comes: ended, so the namespace holds nothing open.
    if (temporal !== undefined) {
      // Schedules it created would fire for ever in the namespace.
      for await (const schedule of temporal.schedule.list()) await temporal.schedule.getHandle(schedule.scheduleId).delete();
      for await (const workflow of temporal.workflow.list({ query: "ExecutionStatus='Running'" })) {
        await temporal.workflow
          .getHandle(workflow.workflowId, workflow.runId)
          .terminate('the fuzzing ended')
          .catch((error: unknown) => {
            if (!(error instanceof WorkflowNotFoundError)) throw error;
          });
      }
    }
    await connection?.close();
    await fs.rm(workArea, { recursive: true, force: true });
  }, 120_000);

  for (const [service, documentPath] of [
    ['ranking', '/api/v1/openapi.json'],
    ['orchestration', '/api/openapi.json'],
  ] as const) {
    it(
      `finds no failure in the ${service} service`,
      async () => {
        const report = path.join(workArea, `${service}.xml`);
        const args = [
          '--config-file',
          path.join(repoRoot, 'test', 'schemathesis.toml'),
          'run',
          `${server.url}${documentPath}`,
          '--url',
          server.url,
          '--checks',
          'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection',
          '--phases',
          'examples,coverage,fuzzing,stateful',
          '--seed',
          String(SEED),
          // One worker: hypothesis's lambda descriptions call ast.parse, which CPython 3.11 can fail on
          // when two threads parse at once ("AST constructor recursion depth mismatch", cpython#106905).
          '--workers',
          '1',
          '--report',
          'junit',
          '--report-junit-path',
          report,
          '--no-color',
        ];
        const result = await runTool(path.join(apiToolsBin(), 'st'), args, {
          cwd: workArea,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false' },
        });
        const xml = await fs.readFile(report, 'utf8').catch(() => '');
        const cases = Number(/<testsuites[^>]*\btests="(\d+)"/.exec(xml)?.[1] ?? 0);
        const failures = Number(/<testsuites[^>]*\bfailures="(\d+)"/.exec(xml)?.[1] ?? -1);
        const errors = Number(/<testsuites[^>]*\berrors="(\d+)"/.exec(xml)?.[1] ?? -1);
        // Its summary, each line prefixed, without its '=====' frames and its closing line ("1 warning
        // in 28.19s"): CI reads such a line as pytest's closing line, and took it for a run of no test.
        const summary = result.stdout
          .split('\n')
          .slice(-60)
          .map((line) => line.replace(/^=+\s*|\s*=+$/g, ''))
          .filter((line) => !/\sin [\d.]+s$/.test(line))
          .map((line) => `  schemathesis ${service} | ${line}`)
          .join('\n');
        // The whole output when it fails: the cases to replay are in it.
        expect({ code: result.code, failures, errors, output: result.code === 0 ? 'ok' : `${result.stdout}\n${result.stderr}` }).toEqual({
          code: 0,
          failures: 0,
          errors: 0,
          output: 'ok',
        });
        // Every operation of the document was attacked: none filtered out, one JUnit case each at least.
        const [, selected, total] = /Operations:\s+(\d+) selected \/ (\d+) total/.exec(result.stdout) ?? [];
        const documented = Object.values(openApiDocuments()[service].paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
        // All but the WebSocket's handshake (schemathesis speaks HTTP) and /livez (it answers for the
        // jest process itself), both disabled in test/schemathesis.toml.
        expect(Number(selected)).toBe(Number(total) - (service === 'orchestration' ? 2 : 0));
        expect(Number(total)).toBeGreaterThanOrEqual(documented - 1);
        expect(cases).toBeGreaterThanOrEqual(Number(selected));
        process.stdout.write(`schemathesis ${service} (seed ${SEED}): ${cases} operations\n${summary}\n`);
      },
      20 * 60_000,
    );
  }
});
