import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The load balancer in front of the API containers (docs/deploy-test.md): Debian's HAProxy, run by the
 * test as a process of its own with a configuration written here. It health-checks each API's
 * `/readyz` every 250 ms and takes a server out after two failures (≤ 0.5 s after its /readyz turns
 * 503, well within the API's drain delay), passes WebSocket upgrades through (`timeout tunnel`), and
 * retries a request whose connection to a server failed on the other server. Its pid file lets
 * scripts/deploy/cleanup.sh stop it after an interrupted run.
 */

export interface Backend {
  name: string;
  port: number;
}

export interface Haproxy {
  origin: string;
  /** Each server's state as HAProxy sees it (UP, DOWN, MAINT, ...), read from its stats socket. */
  states(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export const haproxyFiles = (dir: string) => ({
  config: path.join(dir, 'haproxy.cfg'),
  pid: path.join(dir, 'haproxy.pid'),
  socket: path.join(dir, 'haproxy.sock'),
  log: path.join(dir, 'haproxy.log'),
});

export function haproxyConfig(port: number, backends: Backend[], socket: string): string {
  return `# Written by scripts/deploy/haproxy.ts for the deploy test (docs/deploy-test.md).
global
  log stdout format raw local0 info
  stats socket ${socket} mode 600 level admin
  maxconn 2000

defaults
  mode http
  log global
  option httplog
  option log-health-checks
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # An upgraded WebSocket lives as long as its client keeps it.
  timeout tunnel 1h
  timeout http-keep-alive 5s
  # A request whose connection to a server failed goes to the other one; one that got no answer is
  # sent again only when it is a read (GET, HEAD; the backend says so): a write is never replayed.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response

frontend api
  bind 127.0.0.1:${port}
  default_backend api

backend api
  balance roundrobin
  http-request disable-l7-retry unless METH_GET
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 250ms fastinter 250ms downinter 500ms fall 2 rise 2
${backends.map((backend) => `  server ${backend.name} 127.0.0.1:${backend.port}`).join('\n')}
`;
}

export async function startHaproxy(dir: string, port: number, backends: Backend[]): Promise<Haproxy> {
  const files = haproxyFiles(dir);
  fs.writeFileSync(files.config, haproxyConfig(port, backends, files.socket));
  try {
    await run('haproxy', ['-c', '-q', '-f', files.config]);
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`haproxy refused ${files.config}: ${failed.stderr ?? failed.message}`, { cause: error });
  }
  const log = fs.openSync(files.log, 'a');
  // -db: in the foreground, its log on stdout into the log file; detached, so it is its own process group.
  const child = spawn('haproxy', ['-db', '-f', files.config], { detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  child.unref();
  fs.writeFileSync(files.pid, String(child.pid));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const states = () => serverStates(files.socket);
  for (const deadline = Date.now() + 10_000; ;) {
    if (child.exitCode !== null)
      throw new Error(`haproxy exited with ${child.exitCode}: ${fs.readFileSync(files.log, 'utf8').slice(-2000)}`);
    const seen: Record<string, string> = await states().catch(() => ({}));
    if (backends.every((backend) => seen[backend.name] === 'UP')) break;
    if (Date.now() > deadline) throw new Error(`haproxy: not every API server UP within 10 s: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    origin,
    states,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(files.pid, { force: true });
    },
  };
}

/** `show stat` on the stats socket: each server of the `api` backend and its status. */
async function serverStates(socket: string): Promise<Record<string, string>> {
  const text = await new Promise<string>((resolve, reject) => {
    let data = '';
    const connection = net.createConnection(socket, () => connection.end('show stat\n'));
    connection.setTimeout(2_000, () => connection.destroy(new Error('haproxy stats socket: no answer')));
    connection.on('data', (chunk) => (data += chunk.toString()));
    connection.on('end', () => resolve(data));
    connection.on('error', reject);
  });
  const [header, ...rows] = text.split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const status = columns.indexOf('status');
  const states: Record<string, string> = {};
  for (const row of rows) {
    const fields = row.split(',');
    if (fields[0] === 'api' && fields[1] !== 'BACKEND' && fields[1] !== undefined) states[fields[1]] = fields[status] ?? '';
  }
  return states;
}
