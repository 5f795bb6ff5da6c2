import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The deploy test's containers (docs/deploy-test.md): each started from the image with `docker run`,
 * host networking on loopback ports of its own, its settings as variables and its secrets as mounted
 * files; stopped as a platform stops a pod (`docker stop -t <grace>`: SIGTERM, SIGKILL only after the
 * grace) while its `/readyz` is watched; replaced by a new one with the same settings. Every container
 * carries DEPLOY_LABEL, so scripts/deploy/cleanup.sh finds what an interrupted run left.
 */

export const DEPLOY_LABEL = 'consultores.deploy-test';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Mount {
  host: string;
  container: string;
  readOnly?: boolean;
}

export interface ContainerSpec {
  name: string;
  image: string;
  /** `uid:gid` */
  user: string;
  /** Added to `--cap-drop ALL` (none: no capability at all). */
  capabilities: string[];
  /** `--read-only` with these tmpfs mounts (`path[:options]`); absent: a writable root file system. */
  readOnly?: string[];
  env: Record<string, string>;
  mounts: Mount[];
  /** The command instead of the image's (`node dist/main.js`). */
  command?: string[];
  /** Its readiness probe: `http://127.0.0.1:<port>/readyz`. */
  readyUrl: string;
  /** `docker stop -t`: the termination grace the platform gives it, in seconds. */
  graceSeconds: number;
}

export function runArgs(spec: ContainerSpec, extra: { detach: boolean; remove: boolean }): string[] {
  const args = ['run', '--network', 'host', '--label', `${DEPLOY_LABEL}=1`, '--user', spec.user];
  if (extra.detach) args.push('--detach', '--name', spec.name);
  if (extra.remove) args.push('--rm');
  args.push('--cap-drop', 'ALL', '--security-opt', 'no-new-privileges');
  for (const capability of spec.capabilities) args.push('--cap-add', capability);
  if (spec.readOnly) {
    args.push('--read-only');
    for (const tmpfs of spec.readOnly) args.push('--tmpfs', tmpfs);
  }
  for (const mount of spec.mounts) args.push('--volume', `${mount.host}:${mount.container}${mount.readOnly ? ':ro' : ''}`);
  for (const [name, value] of Object.entries(spec.env)) args.push('--env', `${name}=${value}`);
  args.push(spec.image, ...(spec.command ?? []));
  return args;
}

/** A one-off container (the migrations): its output; throws with it when it fails. */
export async function runOnce(spec: ContainerSpec): Promise<string> {
  try {
    const { stdout, stderr } = await run('docker', runArgs(spec, { detach: false, remove: true }), { maxBuffer: 16 * 1024 * 1024 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${spec.name} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`, { cause: error });
  }
}

export async function startContainer(spec: ContainerSpec): Promise<void> {
  await run('docker', ['rm', '--force', spec.name]).catch(() => undefined);
  await run('docker', runArgs(spec, { detach: true, remove: false }));
}

export interface ContainerState {
  running: boolean;
  exitCode: number;
  startedAt: number;
  finishedAt: number;
}

export async function inspect(name: string): Promise<ContainerState> {
  const { stdout } = await run('docker', ['inspect', '--format', '{{json .State}}', name]);
  const state = JSON.parse(stdout) as { Running: boolean; ExitCode: number; StartedAt: string; FinishedAt: string };
  return {
    running: state.Running,
    exitCode: state.ExitCode,
    startedAt: Date.parse(state.StartedAt),
    finishedAt: Date.parse(state.FinishedAt),
  };
}

/** The container's output so far, appended to its log under `logDir` (one file per container name). */
export async function saveLogs(name: string, logDir: string, header: string): Promise<string> {
  const { stdout, stderr } = await run('docker', ['logs', name], { maxBuffer: 256 * 1024 * 1024 }).catch(() => ({
    stdout: '',
    stderr: '',
  }));
  fs.appendFileSync(path.join(logDir, `${name}.log`), `===== ${header}\n${stdout}${stderr}`);
  return `${stdout}${stderr}`;
}

async function readyStatus(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Waits for the container's `/readyz` to answer 200; fails with its last lines when it exits or is not ready in time. */
export async function waitReady(spec: ContainerSpec, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await readyStatus(spec.readyUrl)) === 200) return Date.now() - started;
    const state = await inspect(spec.name).catch(() => null);
    if (state === null || !state.running || Date.now() - started > timeoutMs) {
      const { stdout, stderr } = await run('docker', ['logs', '--tail', '40', spec.name]).catch(() => ({ stdout: '', stderr: '' }));
      const why = state === null ? 'is gone' : !state.running ? `exited with ${state.exitCode}` : `was not ready within ${timeoutMs} ms`;
      throw new Error(`${spec.name} ${why} (GET ${spec.readyUrl}); its last lines:\n${stdout}${stderr}`);
    }
    await sleep(200);
  }
}

export interface StopFigures {
  name: string;
  /** When `docker stop` was called (SIGTERM). */
  stoppedAt: number;
  /** The first 503 of its /readyz after the SIGTERM; null: never seen. */
  notReadyAt: number | null;
  /** Its /readyz answers while it stopped, counted by status (0: no answer). */
  readyAnswers: Record<string, number>;
  /** When it exited, as Docker recorded it. */
  exitedAt: number;
  exitCode: number;
}

/** `docker stop -t <grace>` while its /readyz is polled every 25 ms; then what was seen. */
export async function stopWatched(spec: ContainerSpec): Promise<StopFigures> {
  const readyAnswers: Record<string, number> = {};
  let notReadyAt: number | null = null;
  let stopping = true;
  const stoppedAt = Date.now();
  const watch = (async () => {
    while (stopping) {
      const status = await readyStatus(spec.readyUrl);
      readyAnswers[status] = (readyAnswers[status] ?? 0) + 1;
      if (status === 503 && notReadyAt === null) notReadyAt = Date.now();
      await sleep(25);
    }
  })();
  try {
    await run('docker', ['stop', '--time', String(spec.graceSeconds), spec.name], { timeout: (spec.graceSeconds + 60) * 1000 });
  } finally {
    stopping = false;
    await watch;
  }
  const state = await inspect(spec.name);
  return { name: spec.name, stoppedAt, notReadyAt, readyAnswers, exitedAt: state.finishedAt, exitCode: state.exitCode };
}

export async function removeContainer(name: string): Promise<void> {
  await run('docker', ['rm', '--force', name]).catch(() => undefined);
}

/** Every container of the deploy test, running or not (an interrupted run's too). */
export async function removeLabelled(): Promise<number> {
  const { stdout } = await run('docker', ['ps', '--all', '--quiet', '--filter', `label=${DEPLOY_LABEL}`]);
  const ids = stdout.split('\n').filter((id) => id.trim() !== '');
  if (ids.length > 0) await run('docker', ['rm', '--force', ...ids]);
  return ids.length;
}

export async function imageId(image: string): Promise<string> {
  try {
    const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{.Id}}', image]);
    return stdout.trim();
  } catch (error) {
    throw new Error(`the image ${image} is not there (npm run image:build makes it): ${(error as Error).message.trim()}`, { cause: error });
  }
}
