import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode } from '../../activities/agents/claude-code';
import { runAgent } from '../../activities/agents/run-agent';
import { agentIsolation } from '../../lib/agent-isolation';
import { config } from '../../lib/config';
import { agentWorkspace } from '../support/agent-workspace';

/**
 * Issue 13, item 2: an agent cannot reach the stack's services, whose loopback ports take
 * credentials every local user can read in this repository (docs/agent-process.md, "Network"):
 * scripts/stack/agent-network.sh refuses them to the agents' group. And the database login cannot
 * read or write files as the server's user (scripts/stack/mariadb.sh: no FILE privilege).
 */

const fakeAgent = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');
const temporalPort = config.temporal.address.split(':').pop()!;
const elasticsearchPort = new URL(config.elasticsearch.url).port;
const guarded = {
  MariaDB: `127.0.0.1:${config.mysql.port}`,
  Redis: `127.0.0.1:${config.redis.port}`,
  Elasticsearch: `127.0.0.1:${elasticsearchPort}`,
  Temporal: `127.0.0.1:${temporalPort}`,
};

let workspace: string;
let control: net.Server;
let controlTarget: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('these tests prove what a root service does: run them as root');
  const isolation = agentIsolation();
  if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
  workspace = agentWorkspace('agent-network-');
  // Any other loopback port stays open: a dev server the agent starts, or a model stand-in.
  control = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  controlTarget = `127.0.0.1:${(control.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => control.close(resolve));
  fs.rmSync(workspace, { recursive: true, force: true });
});

it("refuses every connection from a run to the stack's services, and lets other loopback ports through", async () => {
  const recordFile = path.join(workspace, 'record.json');
  const targets = [...Object.values(guarded), controlTarget];
  await runAgent({
    command: fakeAgent,
    cli: claudeCode,
    run: { prompt: 'probe the network', maxTurns: 1 },
    cwd: path.join(workspace, 'run'),
    workdirRoots: [workspace],
    baseEnv: { ...agentBaseEnv(process.env), FAKE_AGENT_RECORD: recordFile, FAKE_AGENT_CHUNKS: '1', FAKE_AGENT_TRY_CONNECT: JSON.stringify(targets) },
  });
  const record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { uid: number; probes: { connects: Record<string, string> } };
  expect(record.uid).not.toBe(0);
  const seen = Object.fromEntries(Object.entries(guarded).map(([name, target]) => [name, record.probes.connects[target]]));
  expect(seen).toEqual(Object.fromEntries(Object.keys(guarded).map((name) => [name, 'ECONNREFUSED'])));
  expect(record.probes.connects[controlTarget]).toBe('connected');
});

it('gives the database login no FILE privilege: it can neither read nor write files as the server', async () => {
  const { host, port, user, password } = config.mysql;
  const connection = await mysql.createConnection({ host, port, user, password });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>("SELECT LOAD_FILE('/etc/hostname') AS content");
    expect(rows[0]?.content).toBeNull();
    await expect(connection.query("SELECT 'x' INTO OUTFILE '/tmp/agent-network-outfile'")).rejects.toThrow(/FILE privilege/);
    expect(fs.existsSync('/tmp/agent-network-outfile')).toBe(false);
  } finally {
    await connection.end();
  }
});
