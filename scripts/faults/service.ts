import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { Client, NamespaceNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { mysqlConnectionOptions } from '../../db/connection-options';
import { migrateDatabase } from '../../db/migrate';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { repoRoot } from '../../lib/paths';
import { connectTemporal } from '../../temporal/connection';
import { ensureNamespace } from '../../temporal/namespace';
import { freePort } from '../bench/services';
import { generatePersons } from '../generate-persons';
import { superviseRole, type Role, type RoleName, type RoleSpec } from './roles';

const run = promisify(execFile);

/**
 * The service as the fault suite runs it (docs/reliability.md): its own database, index, Redis
 * prefix and Temporal namespace, so the suite touches no other data, and its processes split by role
 * (one API, an agents worker per host, one ranking worker), each under the suite's supervisor.
 */

export const FAULTS_DATABASE = 'consultores_faults';
export const FAULTS_NAMESPACE = 'faults';
const FAULTS_INDEX_PREFIX = 'faults_';
const FAULTS_REDIS_PREFIX = 'faults:';
export const FAULTS_TOKEN = 'faults-token-0123456789abcdef';
const FAULTS_MYSQL_USER = 'faults';
export const HOSTS = { a: 'faults-a', b: 'faults-b' } as const;
/**
 * The data area's filesystem: a tmpfs of its own, so that "full" is one file away. Room for what the long
 * form keeps (its ~400 runs keep about 60 MB of CLI sessions and 3 MB of reports): at 64 MiB the data
 * area filled by itself and a pipeline waited on its report (docs/reliability.md).
 */
const DATA_MOUNT_BYTES = 512 * 1024 * 1024;

export interface FaultService {
  roles: Record<RoleName, Role>;
  origin: string;
  /** The WebSocket's address, with the token (`?token=`, as a browser sends it). */
  wsUrl: string;
  /** The data area, a tmpfs mounted for the suite. */
  dataMount: string;
  /** Working-directory roots of host A and host B. */
  roots: { a: string; b: string };
  /** Where the tagged agent command notes each agent process start. */
  startsFile: string;
  logDir: string;
  pool: mysql.Pool;
  temporal: Client;
  persons: number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  persons: number;
  log(line: string): void;
}

export async function startFaultService(options: ServiceOptions): Promise<FaultService> {
  if (process.getuid?.() !== 0) throw new Error('the fault suite runs agents as the pool users and mounts the data area: run it as root');
  const logDir = path.join(repoRoot, '.stack', 'logs', 'faults');
  fs.mkdirSync(logDir, { recursive: true });

  options.log('building the service (npm run build: dist/ and the workflow bundles, as production runs it)');
  await run('npm', ['run', '--silent', 'build'], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });

  // What is made is undone in reverse order, by stop() or at once when the start fails half-way.
  const undo: Array<() => unknown> = [];
  const undoAll = async () => {
    for (const step of undo.splice(0).reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
  };
  // Interrupted (Ctrl-C, a CI timeout): the role processes would outlive the suite and take the next run's tasks.
  const interrupted = (signal: NodeJS.Signals) => {
    options.log(`${signal}: stopping the service's processes`);
    void undoAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  undo.unshift(() => process.off('SIGINT', interrupted).off('SIGTERM', interrupted));
  try {
    return await startProcesses(options, logDir, undo, undoAll);
  } catch (error) {
    await undoAll();
    throw error;
  }
}

async function startProcesses(
  options: ServiceOptions,
  logDir: string,
  undo: Array<() => unknown>,
  undoAll: () => Promise<void>,
): Promise<FaultService> {
  const dataMount = path.join(repoRoot, '.data', 'faults');
  await mountDataArea(dataMount);
  undo.push(() => unmountDataArea(dataMount));
  const workArea = path.join(config.orchestration.workdirRoots[0]!, `faults-${process.pid}`);
  undo.push(() => fs.rmSync(workArea, { recursive: true, force: true }));
  const roots = { a: path.join(workArea, 'host-a'), b: path.join(workArea, 'host-b') };
  for (const root of Object.values(roots)) fs.mkdirSync(root, { recursive: true });
  // The agents run as the pool's users and note their start here: a file each of them may append to.
  const startsDir = fs.mkdtempSync('/tmp/faults-starts-');
  undo.push(() => fs.rmSync(startsDir, { recursive: true, force: true }));
  fs.chmodSync(startsDir, 0o1777);
  const startsFile = path.join(startsDir, 'starts.log');
  fs.writeFileSync(startsFile, '', { mode: 0o666 });
  fs.chmodSync(startsFile, 0o666);

  // Every run starts from nothing: an earlier run's records, schedules and waiting pipelines would be counted as this one's.
  // The roles run with NODE_ENV=production, which refuses the local stack's development password:
  // they get a user of their own, its password in a file (MYSQL_PASSWORD_FILE) as a deployment gives it.
  const mysqlConfig = { ...config.mysql, database: FAULTS_DATABASE };
  const server = await mysql.createConnection(mysqlConnectionOptions(mysqlConfig));
  const rolesPassword = crypto.randomBytes(18).toString('base64url');
  await server.query(`DROP DATABASE IF EXISTS ${FAULTS_DATABASE}`);
  for (const host of ['127.0.0.1', 'localhost']) {
    await server.query(`CREATE USER IF NOT EXISTS ${FAULTS_MYSQL_USER}@? IDENTIFIED BY ?`, [host, rolesPassword]);
    await server.query(`ALTER USER ${FAULTS_MYSQL_USER}@? IDENTIFIED BY ?`, [host, rolesPassword]);
    await server.query(`GRANT ALL PRIVILEGES ON ${FAULTS_DATABASE}.* TO ${FAULTS_MYSQL_USER}@?`, [host]);
  }
  await server.end();
  const secretsDir = fs.mkdtempSync('/tmp/faults-secrets-'); // 0700, the service's user only
  undo.push(() => fs.rmSync(secretsDir, { recursive: true, force: true }));
  const passwordFile = path.join(secretsDir, 'mysql-password');
  fs.writeFileSync(passwordFile, `${rolesPassword}\n`, { mode: 0o400 });
  await migrateDatabase(mysqlConfig);
  const pool = mysql.createPool({ ...mysqlConnectionOptions(mysqlConfig), database: FAULTS_DATABASE, connectionLimit: 4 });
  undo.push(() => pool.end());
  await ensureNamespace(config.temporal, FAULTS_NAMESPACE);
  const connection = await connectTemporal(config.temporal);
  undo.push(() => connection.close());
  const temporal = new Client({ connection, namespace: FAULTS_NAMESPACE });
  const ended = await terminateOpenWorkflows(temporal);
  if (ended > 0) options.log(`terminated ${ended} workflow(s) an earlier run left open`);

  const es = createElasticsearch({ ...config.elasticsearch, indexPrefix: FAULTS_INDEX_PREFIX });
  try {
    const index = `${FAULTS_INDEX_PREFIX}${PERSON_INDEX_BASE}`;
    const existing = (await es.indices.exists({ index })) ? (await es.count({ index })).count : 0;
    if (existing !== options.persons) {
      const generated = await generatePersons({ es, index, count: options.persons, seed: 2511, recreate: true });
      options.log(`generated ${options.persons} persons into ${index} in ${generated.seconds.toFixed(1)} s`);
    }
  } finally {
    await es.close();
  }

  const httpPort = await freePort();
  const shared: Record<string, string> = {
    NODE_ENV: 'production',
    MYSQL_DATABASE: FAULTS_DATABASE,
    MYSQL_USER: FAULTS_MYSQL_USER,
    MYSQL_PASSWORD_FILE: passwordFile,
    ELASTICSEARCH_INDEX_PREFIX: FAULTS_INDEX_PREFIX,
    REDIS_KEY_PREFIX: FAULTS_REDIS_PREFIX,
    TEMPORAL_NAMESPACE: FAULTS_NAMESPACE,
    AGENT_DATA_DIR: dataMount,
    AGENT_REPORTS_DIR: path.join(dataMount, 'external-reports'),
    AGENT_COMMAND: path.join(repoRoot, 'scripts', 'faults', 'tagged-agent.sh'),
    AGENT_SECRETS_KEY: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    AUTH_TOKEN: FAULTS_TOKEN,
    // Stranded records are ended within seconds rather than a minute: the suite waits for them.
    RECONCILE_INTERVAL_SECONDS: '5',
    RATE_LIMIT_REQUESTS: '1000000',
    HOOK_RATE_LIMIT_REQUESTS: '1000000',
    RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
    PDF_RATE_LIMIT_REQUESTS: '1000000',
    WEBSOCKET_MAX_SOCKETS_PER_CLIENT: '100',
  };
  const specs: RoleSpec[] = [
    {
      name: 'api',
      roles: 'api',
      env: {
        ...shared,
        HTTP_PORT: String(httpPort),
        AGENT_WORKDIR_ROOTS: `${roots.a},${roots.b}`,
        PANEL_DIR: process.env.PANEL_DIR ?? path.resolve(repoRoot, '../shared/admin-panel/public'),
      },
      readyLine: /"msg":"ready"/,
    },
    {
      name: 'agents-a',
      roles: 'agents-worker',
      env: { ...shared, AGENT_HOST: HOSTS.a, AGENT_WORKDIR_ROOTS: roots.a, METRICS_PORT: String(await freePort()) },
      readyLine: hostQueueStarted(HOSTS.a),
    },
    {
      name: 'agents-b',
      roles: 'agents-worker',
      env: { ...shared, AGENT_HOST: HOSTS.b, AGENT_WORKDIR_ROOTS: roots.b, METRICS_PORT: String(await freePort()) },
      readyLine: hostQueueStarted(HOSTS.b),
    },
    {
      name: 'ranking',
      roles: 'ranking-worker',
      env: { ...shared, METRICS_PORT: String(await freePort()) },
      nodeFlags: ['--max-old-space-size=384'],
      readyLine: /"msg":"worker started"/,
    },
  ];
  const roles = Object.fromEntries(specs.map((spec) => [spec.name, superviseRole(spec, logDir)])) as Record<RoleName, Role>;
  undo.push(() => Promise.all(Object.values(roles).map((role) => role.stop())));
  await Promise.all(Object.values(roles).map((role) => role.ready(180_000)));
  const origin = `http://127.0.0.1:${httpPort}`;
  return {
    roles,
    origin,
    wsUrl: `ws://127.0.0.1:${httpPort}/ws?token=${FAULTS_TOKEN}`,
    dataMount,
    roots,
    startsFile,
    logDir,
    pool,
    temporal,
    persons: options.persons,
    stop: undoAll,
  };
}

/** Ends every workflow still open in the suite's namespace (the workers start their reconciler loops again). */
export async function terminateOpenWorkflows(temporal: Client, reason = 'the fault suite starts again from nothing'): Promise<number> {
  // A namespace just registered (a fresh stack) is unknown to the server's cache for a few seconds.
  for (const deadline = Date.now() + 60_000; ;) {
    try {
      let ended = 0;
      for await (const workflow of temporal.workflow.list({ query: "ExecutionStatus='Running'" })) {
        // The list lags: a child its parent's termination already ended can still be listed as running.
        const terminated = await temporal.workflow
          .getHandle(workflow.workflowId, workflow.runId)
          .terminate(reason)
          .then(
            () => true,
            (error: unknown) => {
              if (error instanceof WorkflowNotFoundError) return false;
              throw error;
            },
          );
        if (terminated) ended += 1;
      }
      return ended;
    } catch (error) {
      if (!(error instanceof NamespaceNotFoundError || (error as Error | null)?.name === 'NamespaceNotFoundError') || Date.now() > deadline)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** An agents worker starts its host's queue last: then it takes every kind of task. */
const hostQueueStarted = (host: string) => new RegExp(`"taskQueue":"agents-host-${host}"[^\\n]*"msg":"worker started"`);

/** A tmpfs of DATA_MOUNT_BYTES at `dir`: the machine must allow mounts (root, CAP_SYS_ADMIN), or the suite stops here and says so. */
async function mountDataArea(dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await unmountDataArea(dir);
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${DATA_MOUNT_BYTES},mode=0700`, 'faults-data', dir]);
  } catch (error) {
    throw new Error(
      `the disk-full fault needs a small filesystem of its own for the data area, and mounting a tmpfs at ${dir} failed: ${(error as Error).message.trim()}`,
      { cause: error },
    );
  }
}

async function unmountDataArea(dir: string): Promise<void> {
  const mounted = fs
    .readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === dir);
  if (mounted) await run('umount', [dir]);
}
