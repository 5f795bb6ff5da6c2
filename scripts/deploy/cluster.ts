import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/paths';
import { startStandInModel, type StandInModel } from '../../test/support/stand-in-model';
import { unusedPort } from '../../test/support/ports';
import {
  imageId,
  removeContainer,
  removeLabelled,
  runOnce,
  saveLogs,
  startContainer,
  stopWatched,
  waitReady,
  type ContainerSpec,
  type Mount,
  type StopFigures,
} from './docker';
import { startHaproxy, type Haproxy } from './haproxy';
import { lbClient, type LbClient } from './lb-client';
import { APP_UID, DEPLOY_DIR, DEPLOY_LOG_DIR, dockerAvailable, IN_CONTAINER, preparePlatform, type Platform } from './platform';

/**
 * The service as a cluster would run it from the image (docs/deploy-test.md): the migrations once, two
 * API containers behind HAProxy, two ranking workers, two agents workers (hosts `deploy-a` and
 * `deploy-b`, each with its own working-directory volume, both sharing the data volume with the APIs),
 * all on the secured stack with secrets as mounted files. Each container can be replaced as a rolling
 * deploy replaces it: stopped with the platform's grace while its /readyz is watched, then started
 * again with the same settings and waited for.
 */

export const IMAGE = process.env.DEPLOY_IMAGE ?? 'consultores-agentes:latest';
export const HOSTS = ['deploy-a', 'deploy-b'] as const;
export type Host = (typeof HOSTS)[number];
/**
 * How each role runs (docs/image.md, "Running each role"): the API and the ranking workers as uid
 * 10001 with no capability and a read-only root file system; the agents workers as root with exactly
 * the seven capabilities that doc measures (switching to the pool users, their files, their processes).
 * All with no-new-privileges.
 */
const AGENTS_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL'];
const API_TMPFS = ['/tmp', `/home/app:uid=10001,gid=10001,mode=0700`];
const RANKING_TMPFS = ['/tmp'];
/** The image's agents group (Dockerfile). */
const AGENTS_GID = 10100;
/** The tagged agent command where the image's claude is `../../node_modules/.bin/claude` from it. */
const TAGGED_AGENT = '/app/scripts/faults/tagged-agent.sh';
export const STARTS_FILE = `${IN_CONTAINER.starts}/starts.log`;

/** What SIGTERM gives each role (docs/probes-and-drains.md), and the grace a platform must give beyond it. */
const DRAINS = {
  api: { env: { DRAIN_DELAY_MS: '3000', SHUTDOWN_TIMEOUT_MS: '15000' }, graceSeconds: 30 },
  'ranking-worker': { env: { SHUTDOWN_TIMEOUT_MS: '30000' }, graceSeconds: 45 },
  'agents-worker': { env: { AGENT_DRAIN_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '15000' }, graceSeconds: 90 },
} as const;

export type Role = keyof typeof DRAINS;

export interface Member {
  spec: ContainerSpec;
  role: Role;
  /** The agents host (agents workers only). */
  host?: Host;
  /** Its HTTP port (API) or metrics port (workers). */
  port: number;
}

export interface Restart {
  name: string;
  role: Role;
  stop: StopFigures;
  /** The new container's start until its /readyz answered 200. */
  startToReadyMs: number;
  readyAt: number;
}

export interface Cluster {
  platform: Platform;
  members: Member[];
  haproxy: Haproxy;
  lb: LbClient;
  model: StandInModel;
  /** The tagged agent command's starts file, on the host. */
  startsFile: string;
  startSeconds: number;
  /** Replaces one container as a rolling deploy does. */
  restart(member: Member): Promise<Restart>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  persons: number;
  log(line: string): void;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const started = Date.now();
  const version = await dockerAvailable();
  const image = await imageId(IMAGE);
  options.log(`Docker ${version}, image ${IMAGE} (${image.slice(7, 19)})`);
  const left = await removeLabelled();
  if (left > 0) options.log(`removed ${left} container(s) an earlier run left`);
  fs.mkdirSync(DEPLOY_LOG_DIR, { recursive: true });
  // An earlier run's container logs (cleanup.sh kept them) move aside: this run's are written afresh.
  const earlier = path.join(DEPLOY_LOG_DIR, `earlier-${new Date().toISOString().replace(/[:.]/g, '')}`);
  for (const file of fs.readdirSync(DEPLOY_LOG_DIR).filter((name) => name.endsWith('.log'))) {
    fs.mkdirSync(earlier, { recursive: true });
    fs.renameSync(path.join(DEPLOY_LOG_DIR, file), path.join(earlier, file));
  }

  const platform = await preparePlatform({ persons: options.persons, hosts: HOSTS, log: (line) => options.log(line) });
  const undo: Array<() => Promise<unknown>> = [() => platform.close()];
  let model: StandInModel | undefined;
  let haproxy: Haproxy | undefined;
  const members: Member[] = [];
  const stopAll = async () => {
    await Promise.all(
      members.map(async (member) => {
        await saveLogs(member.spec.name, DEPLOY_LOG_DIR, 'at the end').catch(() => undefined);
        await removeContainer(member.spec.name);
      }),
    );
    await haproxy?.stop();
    await model?.close().catch(() => undefined);
    for (const step of undo.reverse()) await step().catch(() => undefined);
  };
  try {
    const volumes = volumesOf(platform);
    const common = (secrets: string): Mount[] => [
      { host: secrets, container: IN_CONTAINER.secrets, readOnly: true },
      { host: platform.mounts.certs, container: IN_CONTAINER.certs, readOnly: true },
      { host: volumes.data, container: '/data' },
      { host: volumes.uploads, container: '/uploads' },
    ];
    const workRoots = HOSTS.map((host) => platform.workRoot(host)).join(',');
    const base = (name: string, role: Role, port: number, user: string, mounts: Mount[], env: Record<string, string>): ContainerSpec => ({
      name,
      image: IMAGE,
      user,
      env: {
        ...platform.containerEnv,
        // Loopback only, as every test here (the image listens on 0.0.0.0 by default).
        HTTP_HOST: '127.0.0.1',
        PROCESS_ROLES: role,
        ...DRAINS[role].env,
        ...env,
      },
      mounts,
      capabilities: [],
      readyUrl: `http://127.0.0.1:${port}/readyz`,
      graceSeconds: DRAINS[role].graceSeconds,
    });
    // By uid only, as docs/image.md runs it: the image then adds its `agents` group (uid:gid would drop it).
    const app = String(APP_UID);
    for (const index of [1, 2]) {
      const port = await unusedPort();
      const spec = base(
        `deploy-api-${index}`,
        'api',
        port,
        app,
        [
          ...common(platform.mounts.appSecrets),
          { host: path.resolve(repoRoot, '../shared/admin-panel/public'), container: IN_CONTAINER.panel, readOnly: true },
        ],
        { HTTP_PORT: String(port), PANEL_DIR: IN_CONTAINER.panel, AGENT_WORKDIR_ROOTS: workRoots },
      );
      members.push({ spec: { ...spec, readOnly: API_TMPFS }, role: 'api', port });
    }
    for (const index of [1, 2]) {
      const port = await unusedPort();
      const spec = base(`deploy-ranking-${index}`, 'ranking-worker', port, app, common(platform.mounts.appSecrets), {
        METRICS_PORT: String(port),
      });
      members.push({
        spec: { ...spec, readOnly: RANKING_TMPFS, command: ['node', '--max-old-space-size=384', 'dist/main.js'] },
        role: 'ranking-worker',
        port,
      });
    }
    for (const host of HOSTS) {
      const port = await unusedPort();
      const spec = base(
        `deploy-agents-${host.slice(-1)}`,
        'agents-worker',
        port,
        '0:0',
        [
          ...common(platform.mounts.rootSecrets),
          { host: volumes.work(host), container: platform.workRoot(host) },
          // The external reports directory (AGENT_REPORTS_DIR), apart from /data: the agents workers' only.
          { host: volumes.reports, container: '/reports' },
          { host: path.join(repoRoot, 'scripts/faults/tagged-agent.sh'), container: TAGGED_AGENT, readOnly: true },
          { host: platform.mounts.starts, container: IN_CONTAINER.starts },
        ],
        { METRICS_PORT: String(port), AGENT_HOST: host, AGENT_WORKDIR_ROOTS: platform.workRoot(host), AGENT_COMMAND: TAGGED_AGENT },
      );
      members.push({ spec: { ...spec, capabilities: AGENTS_CAPABILITIES }, role: 'agents-worker', host, port });
    }

    const migrated = Date.now();
    const output = await runOnce({ ...members[0]!.spec, name: 'deploy-migrate', command: ['node', 'dist/db/migrate-cli.js'] });
    fs.writeFileSync(path.join(DEPLOY_LOG_DIR, 'deploy-migrate.log'), output);
    if (!output.includes('migrations applied')) throw new Error(`the migrations did not say they were applied:\n${output}`);
    options.log(`migrations applied once, in ${((Date.now() - migrated) / 1000).toFixed(1)} s`);

    model = await startStandInModel();
    const booted = Date.now();
    await Promise.all(members.map((member) => startContainer(member.spec)));
    await Promise.all(members.map((member) => waitReady(member.spec, 240_000)));
    options.log(`${members.length} containers ready in ${((Date.now() - booted) / 1000).toFixed(1)} s`);

    const lbPort = await unusedPort();
    haproxy = await startHaproxy(
      DEPLOY_DIR,
      lbPort,
      members.filter((member) => member.role === 'api').map((member) => ({ name: member.spec.name, port: member.port })),
    );
    options.log(`HAProxy on ${haproxy.origin}, both APIs UP`);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const lb = lbClient(haproxy.origin, platform.token);
  return {
    platform,
    members,
    haproxy,
    lb,
    model,
    startsFile: path.join(platform.mounts.starts, 'starts.log'),
    startSeconds: (Date.now() - started) / 1000,
    async restart(member) {
      const stop = await stopWatched(member.spec);
      await saveLogs(member.spec.name, DEPLOY_LOG_DIR, `stopped (exit ${stop.exitCode})`);
      await removeContainer(member.spec.name);
      const starting = Date.now();
      await startContainer(member.spec);
      const startToReadyMs = await waitReady(member.spec, 240_000);
      return { name: member.spec.name, role: member.role, stop, startToReadyMs, readyAt: starting + startToReadyMs };
    },
    stop: stopAll,
  };
}

/**
 * The volumes, as the image's directories are (Dockerfile, docs/image.md): one data volume shared by
 * every role, holding the data area (`/data`: app's, 0700), the external reports directory of the
 * agents workers (`/reports`: app's, 0700) and the uploads (`/uploads`: app's, group agents, 0710);
 * each agents host's working directories (root's, group agents, 2770).
 */
function volumesOf(platform: Platform): { data: string; reports: string; uploads: string; work: (host: Host) => string } {
  const data = path.join(platform.mounts.shared, 'data');
  const reports = path.join(platform.mounts.shared, 'reports');
  const uploads = path.join(platform.mounts.shared, 'uploads');
  for (const dir of [data, reports]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.chownSync(dir, APP_UID, APP_UID);
    fs.chmodSync(dir, 0o700);
  }
  fs.mkdirSync(uploads, { recursive: true });
  fs.chownSync(uploads, APP_UID, AGENTS_GID);
  fs.chmodSync(uploads, 0o710);
  for (const host of HOSTS) {
    const work = platform.mounts.work(host);
    fs.chownSync(work, 0, AGENTS_GID);
    fs.chmodSync(work, 0o2770);
  }
  return { data, reports, uploads, work: (host) => platform.mounts.work(host) };
}
