import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type ProcessRole } from '../../lib/config';
import { SECRET_SETTINGS, secretFileProblem, type ProcessIdentity } from '../../lib/secret-files';
import { shutdownDeadlineMs } from '../../lib/shutdown';
import { CHART_DIR, PRODUCTION_VALUES, REPO_ROOT, renderChart, rendered, roleOf, workloads, type K8sObject } from '../support/chart';

/**
 * The Helm chart as rendered (issue 41 §1; docs/deployment.md): what a cluster would run, read back
 * and checked against the service's own rules, with the default values and the production example.
 * scripts/chart/check.sh also lints it and validates every object against the Kubernetes schemas.
 */

jest.setTimeout(15 * 60_000);

const APP_VERSION = /^appVersion: "([^"]+)"$/m.exec(fs.readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8'))![1];
const PACKAGE_VERSION = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
const AGENTS_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL'];
/** The image's first pool user (docs/image.md): uid 10101, group agents 10100 only. */
const POOL_USER: ProcessIdentity = { uid: 10101, groups: [10100] };

const STAND_INS = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-files-'));
afterAll(() => fs.rmSync(STAND_INS, { recursive: true, force: true }));

let renders: Array<{ name: string; objects: K8sObject[] }>;

beforeAll(() => {
  renders = [
    { name: 'default values', objects: rendered() },
    { name: 'production example', objects: rendered([PRODUCTION_VALUES]) },
  ];
});

const eachRender = (check: (objects: K8sObject[], name: string) => void) => {
  for (const { name, objects } of renders) {
    try {
      check(objects, name);
    } catch (error) {
      (error as Error).message = `${name}: ${(error as Error).message}`;
      throw error;
    }
  }
};

const podSpec = (workload: K8sObject) => workload.spec.template.spec;
const allContainers = (workload: K8sObject): any[] => [...(podSpec(workload).initContainers ?? []), ...podSpec(workload).containers];
const mainContainer = (workload: K8sObject) => podSpec(workload).containers[0];
const envValue = (container: any, name: string) => container.env?.find((entry: any) => entry.name === name);

/** The identity a container's process has: its user and every group it holds. */
function identityOf(workload: K8sObject, container: any): ProcessIdentity {
  const pod = podSpec(workload).securityContext ?? {};
  const own = container.securityContext ?? {};
  const uid = own.runAsUser ?? pod.runAsUser;
  const gid = own.runAsGroup ?? pod.runAsGroup ?? 0;
  return { uid, groups: [gid, ...(pod.supplementalGroups ?? []), ...(pod.fsGroup !== undefined ? [pod.fsGroup] : [])] };
}

/** A Secret volume's file as the kubelet writes it: root's; with fsGroup, that group and g+r (a read-only volume). */
function secretFileStat(workload: K8sObject, volume: any): fs.Stats {
  const fsGroup: number | undefined = podSpec(workload).securityContext?.fsGroup;
  const mode = volume.secret.defaultMode | (fsGroup !== undefined ? 0o440 : 0);
  return { isFile: () => true, mode: 0o100000 | mode, uid: 0, gid: fsGroup ?? 0 } as unknown as fs.Stats;
}

/** Whether a user may read a file, by the owner, group and other bits. */
function readable(stat: fs.Stats, who: ProcessIdentity): boolean {
  if (who.uid === 0) return true;
  if (stat.uid === who.uid) return (stat.mode & 0o400) !== 0;
  if (who.groups.includes(stat.gid)) return (stat.mode & 0o040) !== 0;
  return (stat.mode & 0o004) !== 0;
}

/**
 * A container's environment as its process would see it: the ConfigMap, then its own variables; each
 * `<NAME>_FILE` as the value it names (a stand-in of the right shape), the pod's name for AGENT_HOST.
 */
function processEnv(objects: K8sObject[], workload: K8sObject, container: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const map = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === source.configMapRef.name);
    if (map === undefined) throw new Error(`${container.name}: no ConfigMap ${source.configMapRef.name}`);
    Object.assign(env, map.data);
  }
  for (const entry of container.env ?? []) {
    if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[entry.name] = `${workload.metadata.name}-0`;
    else env[entry.name] = entry.value;
  }
  // A file a setting names inside a mounted Secret (a CA bundle): the container mounts it; a stand-in is read.
  for (const [name, value] of Object.entries(env).filter(([, value]) => value.startsWith('/run/secrets/'))) {
    if (!(container.volumeMounts ?? []).some((mount: any) => value.startsWith(`${mount.mountPath}/`)))
      throw new Error(`${container.name}: ${name}=${value} is not mounted`);
    const standIn = path.join(STAND_INS, value);
    fs.mkdirSync(path.dirname(standIn), { recursive: true });
    fs.writeFileSync(standIn, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', { mode: 0o400 });
    if (!name.endsWith('_FILE') || !(SECRET_SETTINGS as readonly string[]).includes(name.slice(0, -5))) env[name] = standIn;
  }
  // The panel's volume: mounted where PANEL_DIR says; the published panel stands in for it.
  if (env.PANEL_DIR !== undefined) {
    expect((container.volumeMounts ?? []).map((mount: any) => mount.mountPath)).toContain(env.PANEL_DIR);
    env.PANEL_DIR = path.resolve(REPO_ROOT, '../shared/admin-panel/public');
  }
  for (const name of Object.keys(env).filter(
    (key) => key.endsWith('_FILE') && (SECRET_SETTINGS as readonly string[]).includes(key.slice(0, -5)),
  )) {
    const setting = name.slice(0, -5);
    delete env[name];
    env[setting] =
      setting === 'AGENT_SECRETS_KEY'
        ? 'ab'.repeat(32)
        : setting === 'REDIS_URL'
          ? 'rediss://redis.example.org:6380'
          : `a-${setting.toLowerCase()}-value`;
  }
  return env;
}

describe('the Helm chart, rendered', () => {
  test('renders the three roles from one image at the chart appVersion, which is the package version, never latest', () => {
    expect(APP_VERSION).toBe(PACKAGE_VERSION);
    eachRender((objects, name) => {
      const byRole = Object.fromEntries(workloads(objects).map((workload) => [roleOf(workload), workload.kind]));
      expect(byRole).toEqual({ api: 'Deployment', 'ranking-worker': 'Deployment', 'agents-worker': 'StatefulSet' });
      const images = new Set(
        workloads(objects).flatMap((workload) => allContainers(workload).map((container) => container.image as string)),
      );
      expect(images.size).toBe(1);
      const [image] = [...images];
      expect(image).toMatch(
        name === 'default values' ? /^consultores-agentes:0\.1\.0$/ : /^registry\.example\.org\/consultores\/consultores-agentes:0\.1\.0$/,
      );
      expect(image).not.toMatch(/:latest$/);
    });
  });

  test('gives every container requests and limits, and every long-running one its probes on /livez and /readyz', () => {
    eachRender((objects) => {
      for (const workload of workloads(objects)) {
        for (const container of allContainers(workload)) {
          expect(
            [
              container.name,
              container.resources.requests.cpu,
              container.resources.requests.memory,
              container.resources.limits.memory,
            ].every(Boolean),
          ).toBe(true);
        }
        const main = mainContainer(workload);
        const ports = (main.ports ?? []).map((port: any) => port.name);
        expect([main.livenessProbe.httpGet.path, main.readinessProbe.httpGet.path, main.startupProbe.httpGet.path]).toEqual([
          '/livez',
          '/readyz',
          '/livez',
        ]);
        expect(ports).toContain(main.readinessProbe.httpGet.port);
        // Seen within DRAIN_DELAY_MS (docs/probes-and-drains.md): one failure takes a pod out.
        expect([main.readinessProbe.periodSeconds, main.readinessProbe.failureThreshold]).toEqual([2, 1]);
      }
    });
  });

  test('runs the API, the ranking worker and their migrations as uid 10001 without a capability, the agents worker as root with exactly its seven', () => {
    eachRender((objects) => {
      for (const workload of workloads(objects)) {
        for (const container of allContainers(workload)) {
          const security = container.securityContext;
          expect(security.allowPrivilegeEscalation).toBe(false);
          expect(security.capabilities.drop).toEqual(['ALL']);
          const where = `${roleOf(workload)}/${container.name}`;
          if (container.name === 'agents-worker') {
            expect([where, security.runAsUser, [...security.capabilities.add].sort()]).toEqual([where, 0, [...AGENTS_CAPABILITIES].sort()]);
          } else if (container.name === 'set-owners') {
            expect([where, security.runAsUser, [...security.capabilities.add].sort()]).toEqual([
              where,
              0,
              ['CHOWN', 'DAC_OVERRIDE', 'FOWNER'],
            ]);
          } else if (roleOf(workload) === 'agents-worker') {
            // The agents pod's migrations: its user (the secret files are root's 0400), no capability.
            expect([where, security.runAsUser, security.capabilities.add]).toEqual([where, 0, undefined]);
          } else {
            expect([where, security.runAsNonRoot, security.runAsUser, security.readOnlyRootFilesystem, security.capabilities.add]).toEqual([
              where,
              true,
              10001,
              true,
              undefined,
            ]);
          }
        }
      }
    });
  });

  test('gives each role a termination grace longer than its own shutdown deadline (lib/shutdown.ts)', () => {
    const graces: Record<string, number> = {};
    eachRender((objects, name) => {
      for (const workload of workloads(objects)) {
        const role = roleOf(workload) as ProcessRole;
        const config = loadConfig(processEnv(objects, workload, mainContainer(workload)));
        expect(config.roles).toEqual([role]);
        const deadlineMs = shutdownDeadlineMs(config.shutdown, config.roles, config.dependencyTimeoutMs);
        const grace = podSpec(workload).terminationGracePeriodSeconds as number;
        expect([role, grace * 1000 > deadlineMs]).toEqual([role, true]);
        if (name === 'default values') graces[role] = grace;
      }
    });
    // docs/probes-and-drains.md's table, with the defaults.
    expect(graces).toEqual({ api: 30, 'ranking-worker': 25, 'agents-worker': 1829 });
  });

  test('runs the migrations first in every pod, with the role configuration the role itself accepts', () => {
    eachRender((objects) => {
      for (const workload of workloads(objects)) {
        const inits = podSpec(workload).initContainers.map((container: any) => container.name);
        expect(inits[inits.length - 1]).toBe('migrate');
        const migrate = podSpec(workload).initContainers.find((container: any) => container.name === 'migrate');
        expect(migrate.command).toEqual(['node', 'dist/db/migrate-cli.js']);
        expect(envValue(migrate, 'PROCESS_ROLES').value).toBe(roleOf(workload));
        // The same settings as the role's process: the production rules pass for both.
        expect(() => loadConfig(processEnv(objects, workload, migrate))).not.toThrow();
      }
    });
  });

  test('gives every secret as a file from a Secret, readable by its role and by no agent', () => {
    eachRender((objects, name) => {
      const configMaps = objects.filter((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-config'));
      expect(configMaps).toHaveLength(1);
      for (const setting of SECRET_SETTINGS) expect([setting, setting in configMaps[0]!.data]).toEqual([setting, false]);
      let files = 0;
      for (const workload of workloads(objects)) {
        for (const container of allContainers(workload)) {
          const secretEnv = (container.env ?? []).filter((entry: any) => (SECRET_SETTINGS as readonly string[]).includes(entry.name));
          expect(secretEnv).toEqual([]);
          for (const entry of (container.env ?? []).filter(
            (item: any) => item.name.endsWith('_FILE') && (SECRET_SETTINGS as readonly string[]).includes(item.name.slice(0, -5)),
          )) {
            const mount = container.volumeMounts.find((item: any) => entry.value.startsWith(`${item.mountPath}/`));
            const volume = podSpec(workload).volumes.find((item: any) => item.name === mount?.name);
            expect(volume?.secret?.items?.map((item: any) => item.path)).toContain(path.basename(entry.value));
            const stat = secretFileStat(workload, volume);
            const where = `${roleOf(workload)}/${container.name}/${entry.name}`;
            expect([where, secretFileProblem(stat, identityOf(workload, container))]).toEqual([where, null]);
            expect([where, readable(stat, identityOf(workload, container)), readable(stat, POOL_USER)]).toEqual([where, true, false]);
            files += 1;
          }
        }
      }
      // Each of 3 workloads' two containers: the default Secret's 3 keys (the ranking worker reads 2 of
      // them); the production example's 9 (the API reads 8, the ranking worker 5, the agents worker 8).
      expect(files).toBe(name === 'default values' ? 2 * (3 + 2 + 3) : 2 * (8 + 5 + 8));
    });
  });

  test('makes each agents pod its own host: AGENT_HOST from its name, its own disk or the shared one, the shared data volume', () => {
    const [defaults, production] = renders.map(({ objects }) => objects);
    for (const objects of [defaults!, production!]) {
      const agents = workloads(objects).find((workload) => roleOf(workload) === 'agents-worker')!;
      expect(envValue(mainContainer(agents), 'AGENT_HOST').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
      const mounts = Object.fromEntries(mainContainer(agents).volumeMounts.map((mount: any) => [mount.mountPath, mount.name]));
      expect(mounts).toMatchObject({ '/data': 'shared-data', '/uploads': 'shared-data', '/home/projetos': 'workdirs' });
      const shared = objects.find((object) => object.kind === 'PersistentVolumeClaim' && object.metadata.name.endsWith('-shared-data'));
      expect(shared?.spec.accessModes).toEqual(['ReadWriteMany']);
    }
    const perPod = workloads(defaults!).find((workload) => roleOf(workload) === 'agents-worker')!;
    expect(perPod.spec.volumeClaimTemplates.map((claim: any) => [claim.metadata.name, claim.spec.accessModes])).toEqual([
      ['workdirs', ['ReadWriteOnce']],
    ]);
    const sharedMode = workloads(production!).find((workload) => roleOf(workload) === 'agents-worker')!;
    expect(sharedMode.spec.volumeClaimTemplates).toBeUndefined();
    const api = workloads(production!).find((workload) => roleOf(workload) === 'api')!;
    expect(mainContainer(api).volumeMounts.find((mount: any) => mount.mountPath === '/home/projetos')?.name).toBe('workdirs');
  });

  test("mounts the external reports directory at the image's AGENT_REPORTS_DIR in the agents workers only, apart from /data", () => {
    const imageEnv = (name: string) =>
      new RegExp(`^\\s+${name}=(\\S+)`, 'm').exec(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'))?.[1];
    const reportsDir = imageEnv('AGENT_REPORTS_DIR')!;
    expect([imageEnv('AGENT_DATA_DIR'), reportsDir]).toEqual(['/data', '/reports']);
    const mountsOf = (container: any) =>
      Object.fromEntries((container.volumeMounts ?? []).map((mount: any) => [mount.mountPath, [mount.name, mount.subPath ?? null]]));
    const withOwnClaim = rendered([], ['externalReports.existingClaim=reports-for-the-wiki']);
    for (const [name, objects] of [...renders.map(({ name, objects }) => [name, objects] as const), ['own claim', withOwnClaim] as const]) {
      for (const workload of workloads(objects)) {
        const container = mainContainer(workload);
        // No role sets its own: the image's directory is the one mounted.
        expect(processEnv(objects, workload, container).AGENT_REPORTS_DIR).toBeUndefined();
        const mounts = mountsOf(container);
        if (roleOf(workload) !== 'agents-worker') {
          expect([name, roleOf(workload), mounts[reportsDir]]).toEqual([name, roleOf(workload), undefined]);
          continue;
        }
        expect([name, mounts['/data']]).toEqual([name, ['shared-data', 'data']]);
        if (name === 'own claim') {
          expect(mounts[reportsDir]).toEqual(['external-reports', null]);
          const volume = podSpec(workload).volumes.find((entry: any) => entry.name === 'external-reports');
          expect(volume.persistentVolumeClaim.claimName).toBe('reports-for-the-wiki');
        } else {
          expect([name, mounts[reportsDir]]).toEqual([name, ['shared-data', 'reports']]);
        }
        // The set-owners init container gives the shared volume's reports directory to 10001, 0700, as /data; not an own claim's.
        const setOwners = podSpec(workload)
          .initContainers.find((entry: any) => entry.name === 'set-owners')
          .command.join(' ');
        if (name === 'own claim') expect(setOwners).not.toContain('/shared/reports');
        else expect(setOwners).toContain('mkdir -p /shared/reports && chown 10001:10001 /shared/reports && chmod 0700 /shared/reports');
      }
    }
  });

  test('renders what the production example asks for: route, autoscaler, monitoring from ops/, policies', () => {
    const production = renders[1]!.objects;
    const kinds = production.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    expect(kinds).toEqual(
      expect.arrayContaining([
        'HTTPRoute/consultores-consultores-agentes-api',
        'HorizontalPodAutoscaler/consultores-consultores-agentes-api',
        'PodDisruptionBudget/consultores-consultores-agentes-api',
        'ServiceMonitor/consultores-consultores-agentes',
        'PrometheusRule/consultores-consultores-agentes',
        'ConfigMap/consultores-consultores-agentes-dashboard',
        'NetworkPolicy/consultores-consultores-agentes-api',
        'NetworkPolicy/consultores-consultores-agentes-ranking-worker',
        'NetworkPolicy/consultores-consultores-agentes-agents-worker',
      ]),
    );
    const api = workloads(production).find((workload) => roleOf(workload) === 'api')!;
    expect(envValue(mainContainer(api), 'ALLOWED_HOSTS').value).toBe('consultores.example.org');
    // Every role reaches Elasticsearch at start (workers/connection-check.ts: a 401 ends it), and its
    // /metrics, scraped by pod address with the ServiceMonitor's bearer, asks for AUTH_TOKEN.
    for (const workload of workloads(production)) {
      const given = mainContainer(workload).env.map((entry: any) => entry.name);
      expect([roleOf(workload), given]).toEqual([
        roleOf(workload),
        expect.arrayContaining(['AUTH_TOKEN_FILE', 'ELASTICSEARCH_API_KEY_FILE']),
      ]);
    }
    const monitor = production.find((object) => object.kind === 'ServiceMonitor')!;
    expect(monitor.spec.endpoints.map((endpoint: any) => [endpoint.port, endpoint.authorization.credentials.key])).toEqual([
      ['http', 'AUTH_TOKEN'],
      ['metrics', 'AUTH_TOKEN'],
    ]);
    const rule = production.find((object) => object.kind === 'PrometheusRule')!;
    const opsAlerts = fs.readFileSync(path.join(REPO_ROOT, 'ops/prometheus/alerts.yml'), 'utf8');
    expect(rule.spec.groups.map((group: any) => group.name)).toEqual(
      [...opsAlerts.matchAll(/^ {2}- name: (\S+)$/gm)].map((match) => match[1]),
    );
    // The chart's copies are ops/'s files, byte for byte (Helm reads only files inside the chart).
    expect(fs.readFileSync(path.join(CHART_DIR, 'files/alerts.yml'), 'utf8')).toBe(opsAlerts);
    expect(fs.readFileSync(path.join(CHART_DIR, 'files/dashboard.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(REPO_ROOT, 'ops/grafana/dashboard.json'), 'utf8'),
    );
  });

  test.each([
    // Helm's message names the refused value; the path it reports is not always the value's own.
    ['image.tag=latest', /'not' failed/],
    ['config.AUTH_TOKEN=plain', /invalid propertyName 'AUTH_TOKEN'/],
    ['config.MYSQL_PASSWORD_FILE=/x', /invalid propertyName 'MYSQL_PASSWORD_FILE'/],
    ['agentsWorker.workdirs.mode=everywhere', /value must be one of 'perPod', 'shared'/],
    ['api.replicas=0', /minimum: got 0, want 1/],
    ['secrets.values.NOT_A_SETTING=x', /invalid propertyName 'NOT_A_SETTING'/],
  ])('refuses %s at install (values.schema.json)', (set, message) => {
    const result = renderChart([], [set]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(result.stderr).toMatch(message);
  });
});
