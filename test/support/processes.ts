import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { SETPRIV } from '../../lib/agent-isolation';

const root = path.resolve(__dirname, '../..');

export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs main.ts from source (as `npm start` runs its compiled form) with the test environment plus `env`. */
export function startServiceProcess(env: Record<string, string>): ServiceProcess {
  return startSourceProcess('main.ts', { ...process.env, LOG_LEVEL: 'info', ...env });
}

/**
 * Runs a TypeScript entry point of the repository from source (`node --import tsx <entry>`) with exactly
 * `env`, through setpriv's parent-death signal (it execs node: same pid): a jest worker killed mid-suite
 * takes its services with it, where an orphan agents worker kept polling its namespace and took the
 * next run's activities.
 */
export function startSourceProcess(entry: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', process.execPath, '--import', 'tsx', entry], { cwd: root, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves when a JSON log line with this `msg` appears in the process output. */
export async function waitForLog(service: ServiceProcess, msg: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.output().includes(`"msg":"${msg}"`)) return;
    if (service.child.exitCode !== null) throw new Error(`process exited before "${msg}":\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no "${msg}" within ${timeoutMs} ms:\n${service.output()}`);
}
