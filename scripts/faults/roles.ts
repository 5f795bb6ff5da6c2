import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/paths';

/**
 * The service's roles as the fault suite runs them: each in a process of its own (PROCESS_ROLES),
 * compiled as production runs them (dist/main.js, prebuilt workflow bundles), under a supervisor
 * that starts a process again when it exits, as systemd's `Restart=always` would. A `kill -9` then
 * hits one role, and the suite measures how long the role takes to be back.
 */

export type RoleName = 'api' | 'agents-a' | 'agents-b' | 'ranking';

export interface RoleSpec {
  name: RoleName;
  /** PROCESS_ROLES of the process. */
  roles: string;
  env: Record<string, string>;
  /** V8 flags (the ranking worker's heap cap). */
  nodeFlags?: string[];
  /** The log line that says the process is ready (for an agents worker: its host queue's worker started, the last). */
  readyLine: RegExp;
}

/** A supervised role: its current process, and what happened to it. */
export interface Role {
  spec: RoleSpec;
  /** The live process's pid, or null while it is down. */
  pid(): number | null;
  /** Resolves once the current process printed its ready line (after a restart: the new one). */
  ready(timeoutMs?: number): Promise<void>;
  /** Kills the current process with SIGKILL; the supervisor starts it again. Resolves when it is dead. */
  kill(): Promise<void>;
  /** Times the process exited without the suite asking (a crash, or a start that failed). */
  unexpectedExits(): number;
  /** Stops the role for good (SIGTERM, then SIGKILL after the grace). */
  stop(): Promise<void>;
}

/** How long the supervisor waits before starting an exited process again (a crash loop stays slow). */
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 30_000;

export function superviseRole(spec: RoleSpec, logDir: string): Role {
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.createWriteStream(path.join(logDir, `${spec.name}.log`), { flags: 'a' });
  let child: ChildProcess | null = null;
  let isReady = false;
  let readyWaiters: Array<() => void> = [];
  let stopping = false;
  let killing = false;
  let unexpected = 0;

  const start = () => {
    isReady = false;
    log.write(`\n=== faults: starting ${spec.name} (${spec.roles}) at ${new Date().toISOString()} ===\n`);
    const started = spawn(process.execPath, [...(spec.nodeFlags ?? []), path.join(repoRoot, 'dist', 'main.js')], {
      cwd: repoRoot,
      env: { ...withoutReplaced(process.env, spec.env), ...spec.env, PROCESS_ROLES: spec.roles, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    let seen = '';
    started.stdout.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (isReady) return;
      seen = (seen + chunk.toString()).slice(-20_000);
      if (spec.readyLine.test(seen)) {
        isReady = true;
        const waiters = readyWaiters;
        readyWaiters = [];
        for (const wake of waiters) wake();
      }
    });
    started.stderr.on('data', (chunk: Buffer) => log.write(chunk));
    started.once('exit', (code, signal) => {
      log.write(`=== faults: ${spec.name} exited (code ${code}, signal ${signal}) at ${new Date().toISOString()} ===\n`);
      if (child === started) child = null;
      isReady = false;
      if (stopping) return;
      if (!killing) unexpected += 1;
      killing = false;
      setTimeout(() => {
        if (!stopping) start();
      }, RESTART_DELAY_MS);
    });
  };
  start();

  return {
    spec,
    pid: () => child?.pid ?? null,
    ready(timeoutMs = 120_000) {
      if (isReady) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${spec.name} not ready within ${timeoutMs} ms (log: ${path.join(logDir, `${spec.name}.log`)})`)),
          timeoutMs,
        );
        readyWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async kill() {
      const current = child;
      if (current === null || current.exitCode !== null) return;
      killing = true;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGKILL');
      await exited;
    },
    unexpectedExits: () => unexpected,
    async stop() {
      stopping = true;
      const current = child;
      if (current !== null && current.exitCode === null && current.signalCode === null) {
        const exited = new Promise((resolve) => current.once('exit', resolve));
        current.kill('SIGTERM');
        const timer = setTimeout(() => current.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      await new Promise((resolve) => log.end(resolve));
    },
  };
}

/** The suite's environment less what the role's replaces: `X_FILE` given replaces an inherited `X` (both set is refused). */
function withoutReplaced(inherited: NodeJS.ProcessEnv, given: Record<string, string>): NodeJS.ProcessEnv {
  const replaced = new Set(Object.keys(given).flatMap((name) => (name.endsWith('_FILE') ? [name.slice(0, -'_FILE'.length)] : [])));
  return Object.fromEntries(Object.entries(inherited).filter(([name]) => !replaced.has(name)));
}
