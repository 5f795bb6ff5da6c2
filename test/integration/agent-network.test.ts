import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode } from '../../activities/agents/claude-code';
import { runAgent } from '../../activities/agents/run-agent';
import { agentIsolation } from '../../lib/agent-isolation';
import { config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { promptsOf, standInEnv, startStandInModel, toolResultsOf, type StandInModel } from '../support/stand-in-model';
import { agentWorkspace } from '../support/agent-workspace';
import { requireRoot } from '../support/root';

/**
 * Issue 13, item 2: an agent cannot reach the stack's services, whose loopback ports take
 * credentials every local user can read in this repository (docs/agent-process.md, "Network"):
 * scripts/stack/agent-network.sh refuses them to the agents' group. And the database login cannot
 * read or write files as the server's user (scripts/stack/mariadb.sh: no FILE privilege).
 * The run is the pinned Claude Code CLI against the stand-in model, which has it run the probe as a
 * Bash tool call (docs/claude-code-cli.md).
 */

const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');
const temporalPort = config.temporal.address.split(':').pop()!;
const elasticsearchPort = new URL(config.elasticsearch.url).port;
const guarded = {
  MariaDB: `127.0.0.1:${config.mysql.port}`,
  Redis: `127.0.0.1:${config.redis.port}`,
  Elasticsearch: `127.0.0.1:${elasticsearchPort}`,
  Temporal: `127.0.0.1:${temporalPort}`,
};

let model: StandInModel;
let workspace: string;
let control: net.Server;
let controlTarget: string;

beforeAll(async () => {
  requireRoot('agent-network');
  const isolation = agentIsolation();
  if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
  workspace = agentWorkspace('agent-network-');
  model = await startStandInModel();
  model.recordClients();
  // Any other loopback port stays open: a dev server the agent starts, or a model stand-in.
  control = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  controlTarget = `127.0.0.1:${(control.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await model?.close();
  await new Promise((resolve) => control?.close(resolve));
  fs.rmSync(workspace, { recursive: true, force: true });
});

it("refuses every connection from a run to the stack's services, and lets other loopback ports through", async () => {
  const targets = [...Object.values(guarded), controlTarget];
  // Bash's /dev/tcp, as the run's user: "<target> connected", or the reason the connect failed (at most 3 s each).
  const command = targets
    .map((target) => {
      const [host, port] = target.split(':');
      return `out=$(timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>&1); code=$?; if [ $code -eq 0 ]; then echo '${target} connected'; elif [ $code -eq 124 ]; then echo '${target} timed out'; else echo "${target} \${out##*: }"; fi`;
    })
    .join('; ');
  const prompt = `Probe the network ${randomUUID()}`;
  model.enqueue({
    kind: 'tool_use',
    name: 'Bash',
    input: { command, description: 'Probe the network' },
    when: (request) => promptsOf(request.body).at(-1) === prompt && toolResultsOf(request.body).length === 0,
  });
  const summary = await runAgent({
    command: claudeCli,
    cli: claudeCode,
    run: { prompt, maxTurns: 3 },
    cwd: path.join(workspace, 'run'),
    workdirRoots: [workspace],
    baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  expect(summary).toMatchObject({ exitCode: 0, error: null });

  const [call, answer] = model.messages().filter((request) => promptsOf(request.body).at(-1) === prompt);
  // The CLI itself ran as a pool user: the rule is for the agents' group, root is not refused.
  expect(call!.client).toMatchObject({ uid: expect.any(Number), argv: expect.arrayContaining(['-p']) });
  expect(call!.client!.uid).not.toBe(0);
  // What the tool printed, as the CLI sent it back to the model.
  const [result] = toolResultsOf(answer!.body);
  expect(result!.isError).toBe(false);
  const seen = Object.fromEntries(
    result!.text
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]),
  );
  expect(Object.fromEntries(Object.entries(guarded).map(([name, target]) => [name, seen[target]]))).toEqual(
    Object.fromEntries(Object.keys(guarded).map((name) => [name, 'Connection refused'])),
  );
  expect(seen[controlTarget]).toBe('connected');
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
