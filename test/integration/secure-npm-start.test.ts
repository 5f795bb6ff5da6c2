import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { ensureNamespace } from '../../temporal/namespace';
import { unusedPort } from '../support/ports';
import { baseProcessEnv, SECURE_DIR, secureServiceEnv } from '../support/secure-stack';
import { until } from '../support/waiting';

/**
 * The command docs/secure-stack.md gives a person, run as they would run it:
 *   set -a; . .stack/secure/service.env; set +a; npm start
 * with only what keeps it apart from the other suites on the same stack (its own port, database,
 * namespace, key prefix and agents host). START_LOCAL_STACK=false in service.env leaves the local stack alone.
 */
describe('npm start on the secured stack', () => {
  const database = 'consultores_npm_start';
  const namespace = 'npm-start';
  let port: number;
  let output = '';
  let exited: Promise<number | null>;
  let pid: number;
  let token: string;

  beforeAll(async () => {
    const service = secureServiceEnv();
    token = fs.readFileSync(service.AUTH_TOKEN_FILE!, 'utf8').trim();
    // The workers never create their namespace (docs/connections.md): it exists before they start.
    await ensureNamespace(loadConfig(service).temporal, namespace);
    port = await unusedPort();
    const apart = `HTTP_PORT=${port} MYSQL_DATABASE=${database} TEMPORAL_NAMESPACE=${namespace} REDIS_KEY_PREFIX=npm-start: AGENT_HOST=npm-start-test`;
    const command = `set -a; . ${path.join(SECURE_DIR, 'service.env')}; set +a; ${apart} npm start`;
    const child = spawn('bash', ['-c', command], { cwd: repoRoot, env: baseProcessEnv(), detached: true });
    pid = child.pid!;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    // A fresh clone builds first (tsc and the workflow bundles).
    await until(
      'npm start to be ready',
      () => Promise.resolve(output),
      (text) => text.includes('"msg":"ready"') || child.exitCode !== null,
      420_000,
    );
    if (child.exitCode !== null) throw new Error(`npm start ended (${child.exitCode}):\n${output}`);
  }, 480_000);

  afterAll(async () => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already stopped by the last test
    }
    await exited;
  }, 60_000);

  /** The service's own process (start.sh execs it) in the command's process group. */
  const servicePid = () => {
    const found = execFileSync('pgrep', ['-g', String(pid), '-f', 'dist/main.js'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(found).toHaveLength(1);
    return Number(found[0]);
  };

  it('leaves the local stack alone and runs the service on the pinned Node', () => {
    expect(output).toContain('stack: START_LOCAL_STACK=false: the local stack is not started');
    expect(output).not.toMatch(/^stack: (mariadb|redis|elasticsearch|temporal)\b/m);
    const pinned = /^NODE_PINNED_VERSION=(\S+)$/m.exec(fs.readFileSync(path.join(repoRoot, 'scripts/node/ensure-node.sh'), 'utf8'))![1];
    expect(fs.readlinkSync(`/proc/${servicePid()}/exe`)).toMatch(new RegExp(`/v${pinned!.replace(/\./g, '\\.')}/bin/node$`));
  });

  it('serves /api with the token from AUTH_TOKEN_FILE only, every part up through TLS and credentials', async () => {
    const url = `http://127.0.0.1:${port}/api/system/status`;
    expect((await fetch(url)).status).toBe(401);
    const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { dependencies: Record<string, { status: string }> };
    expect(Object.fromEntries(Object.entries(body.dependencies).map(([name, part]) => [name, part.status]))).toEqual({
      mysql: 'up',
      redis: 'up',
      elasticsearch: 'up',
      temporal: 'up',
    });
  });

  it('stops on SIGTERM to the service with exit code 0, and npm start with it', async () => {
    // As a supervisor stops it: the signal to the service's process, not the whole group.
    process.kill(servicePid(), 'SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"shutdown complete"');
  }, 60_000);
});
