import { startCluster, type Cluster } from '../../scripts/deploy/cluster';
import {
  figuresTable,
  prepareFixture,
  probeSecrets,
  rollingRestart,
  secretValues,
  SHAPE,
  WORKER_SECRETS,
  writeFigures,
  type Fixture,
} from '../../scripts/deploy/rolling';
import { IN_CONTAINER } from '../../scripts/deploy/platform';
import { requireRoot } from '../support/root';

/**
 * The image, scaled out and restarted under load (issue 40, section 4; docs/deploy-test.md): from the
 * built image, on the secured stack, the migrations once, two APIs behind HAProxy, two ranking workers
 * and two agents workers (hosts of their own, one shared data volume), secrets as mounted files. An
 * agent's process cannot read its worker's secret files; then every container is replaced one at a
 * time under load (agent runs of the real CLI streaming to WebSocket clients, a ranking job, a pipeline
 * waiting for approval, a steady prober through the load balancer), and nothing is lost: every run
 * completed once, none "worker stopped", no line lost or doubled, the ranking whole, the pipeline
 * completed once approved, /readyz 503 before each exit, no request through HAProxy refused.
 * Fails (never skips) without Docker, the image or HAProxy.
 */

const log = (line: string) => process.stdout.write(`deploy: ${line}\n`);
const started = Date.now();
let cluster: Cluster | undefined;
let fixture: Fixture;

beforeAll(async () => {
  requireRoot('deploy');
  cluster = await startCluster({ persons: SHAPE.persons, log });
  fixture = await prepareFixture(cluster);
}, 15 * 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 5 * 60_000);

it(
  "an agent's process cannot read its worker's secret files",
  async () => {
    const probes = await probeSecrets(cluster!, fixture);
    const values = secretValues(cluster!);
    for (const probe of probes) {
      log(`secret probe on ${probe.host}: ${probe.status}: ${probe.output.replace(/\s+/g, ' ').slice(0, 600)}`);
      expect(probe.status).toBe('completed');
      for (const file of WORKER_SECRETS) expect(probe.output).toContain(`cat: ${IN_CONTAINER.secrets}/${file}: Permission denied`);
      for (const value of values) expect(probe.output).not.toContain(value);
    }
  },
  5 * 60_000,
);

it(
  'restarts every container one at a time under load and loses nothing',
  async () => {
    const result = await rollingRestart(cluster!, fixture, log);
    const totalSeconds = (Date.now() - started) / 1000;
    log(`\n${figuresTable(result.figures)}`);
    log(`figures in ${writeFigures(result, totalSeconds)}; ${totalSeconds.toFixed(0)} s since the suite started`);
    expect(result.violations).toEqual([]);
    expect(result.figures.restarts.map((restart) => restart.name).sort()).toEqual(
      cluster!.members.map((member) => member.spec.name).sort(),
    );
    expect(result.figures.runs.completed).toBe(result.figures.runs.accepted);
    expect(result.figures.lines.lost + result.figures.lines.doubled).toBe(0);
    expect(result.figures.lb.refused).toBe(0);
  },
  20 * 60_000,
);

it(
  "renders a consultant's PDF sheet through the load balancer, from an API running as uid 10001 without a capability",
  async () => {
    const page = await cluster!.lb.read('/api/v1/ranking/paginado?page=1');
    const first = (page.consultores as Array<{ id_pessoa: number }>)[0]!;
    const response = await fetch(`${cluster!.lb.origin}/api/v1/consultor/${first.id_pessoa}/pdf`, { signal: AbortSignal.timeout(60_000) });
    const body = Buffer.from(await response.arrayBuffer());
    log(`PDF sheet of ${first.id_pessoa}: ${response.status} ${response.headers.get('content-type')} ${body.length} bytes`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  },
  5 * 60_000,
);
