import path from 'node:path';
import { ConfigError, loadConfig } from '../../lib/config';

describe('loadConfig', () => {
  it('derives the local-stack defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(config.shutdown).toEqual({ timeoutMs: 15_000, drainDelayMs: 5_000, workerGraceMs: 10_000, agentDrainMs: 1_800_000 });
    expect(config.mysql).toEqual({
      host: '127.0.0.1',
      port: 3307,
      socketPath: null,
      user: 'app',
      password: 'app',
      database: 'consultores',
      poolSize: 10,
      tls: null,
    });
    expect(config.redis).toEqual({
      host: '127.0.0.1',
      port: 6380,
      keyPrefix: 'app:',
      username: null,
      password: null,
      db: 0,
      tls: null,
      sentinel: null,
    });
    expect(config.elasticsearch).toEqual({
      url: 'http://127.0.0.1:9201',
      nodes: ['http://127.0.0.1:9201'],
      cloudId: null,
      auth: null,
      tls: { ca: null, caFingerprint: null },
      indexPrefix: '',
    });
    expect(config.temporal).toEqual({
      address: '127.0.0.1:7233',
      namespace: 'default',
      uiUrl: 'http://127.0.0.1:8233',
      tls: undefined,
      apiKey: undefined,
      metadata: undefined,
    });
    expect(config.warnings).toEqual([]);
    expect(config.roles).toEqual(['api', 'ranking-worker', 'agents-worker']);
  });

  it('keeps the external reports directory apart from the data area, beside it in the repository', () => {
    // The specification: reports "inside the service data area and in an external reports directory".
    const repo = path.resolve(__dirname, '../..');
    const { dataDir, reportsDir, uploads } = loadConfig({}).orchestration;
    expect({ dataDir, reportsDir, uploads: uploads.dir }).toEqual({
      dataDir: path.join(repo, '.data'),
      reportsDir: path.join(repo, '.reports'),
      uploads: path.join(repo, '.uploads'),
    });
    expect(path.relative(dataDir, reportsDir).startsWith('..')).toBe(true);
    // An explicit data area does not take the reports with it.
    expect(loadConfig({ AGENT_DATA_DIR: '/srv/data' }).orchestration.reportsDir).toBe(path.join(repo, '.reports'));
  });

  it('builds addresses from the stack ports unless full addresses are given', () => {
    expect(loadConfig({ ELASTICSEARCH_PORT: '9999', TEMPORAL_PORT: '7000' })).toMatchObject({
      elasticsearch: { url: 'http://127.0.0.1:9999' },
      temporal: { address: '127.0.0.1:7000' },
    });
    expect(loadConfig({ ELASTICSEARCH_URL: 'http://es.internal:9200', TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toMatchObject({
      elasticsearch: { url: 'http://es.internal:9200' },
      temporal: { address: 'temporal.internal:7233' },
    });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ HTTP_PORT: '', MYSQL_DATABASE: '' })).toMatchObject({
      http: { port: 3000 },
      mysql: { database: 'consultores' },
    });
  });

  it('parses the process roles and drops duplicates', () => {
    expect(loadConfig({ PROCESS_ROLES: 'ranking-worker, api,api' }).roles).toEqual(['ranking-worker', 'api']);
  });

  it.each([
    [{ HTTP_PORT: '70000' }, 'HTTP_PORT'],
    [{ HTTP_PORT: 'abc' }, 'HTTP_PORT'],
    [{ MYSQL_DATABASE: 'bad-name; DROP' }, 'MYSQL_DATABASE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ELASTICSEARCH_URL: 'not a url' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_INDEX_PREFIX: 'UPPER' }, 'ELASTICSEARCH_INDEX_PREFIX'],
    [{ PROCESS_ROLES: 'api,cook' }, 'PROCESS_ROLES'],
    [{ PROCESS_ROLES: ' , ' }, 'PROCESS_ROLES'],
  ])('rejects %p naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid environment: .*${name}`));
  });

  it("derives the workers' grace from SHUTDOWN_TIMEOUT_MS and the agents' drain from the run time limit", () => {
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '6000', AGENT_RUN_TIMEOUT_SECONDS: '90' }).shutdown).toEqual({
      timeoutMs: 6_000,
      drainDelayMs: 5_000,
      workerGraceMs: 4_000,
      agentDrainMs: 90_000,
    });
    expect(loadConfig({ DRAIN_DELAY_MS: '0', WORKER_SHUTDOWN_GRACE_MS: '14999', AGENT_DRAIN_TIMEOUT_MS: '0' }).shutdown).toEqual({
      timeoutMs: 15_000,
      drainDelayMs: 0,
      workerGraceMs: 14_999,
      agentDrainMs: 0,
    });
  });

  it('refuses a worker grace the shutdown bound would cut, and drains beyond their bounds', () => {
    expect(() => loadConfig({ WORKER_SHUTDOWN_GRACE_MS: '15000' })).toThrow(
      new ConfigError('invalid environment: WORKER_SHUTDOWN_GRACE_MS: 15000 is not below SHUTDOWN_TIMEOUT_MS (15000), which bounds it'),
    );
    expect(() => loadConfig({ DRAIN_DELAY_MS: '300001' })).toThrow(/^invalid environment: DRAIN_DELAY_MS: /);
    expect(() => loadConfig({ AGENT_DRAIN_TIMEOUT_MS: '-1' })).toThrow(/^invalid environment: AGENT_DRAIN_TIMEOUT_MS: /);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '600001' })).toThrow(/^invalid environment: SHUTDOWN_TIMEOUT_MS: /);
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ HTTP_PORT: '0', REDIS_PORT: 'x' })).toThrow(/HTTP_PORT: .*; REDIS_PORT: /);
  });
});

describe('AGENT_WORKDIR_ROOTS and system directories', () => {
  // The worker makes every root root:agents 2770: a system directory would be given to every agent.
  const given = (dir: string) => `the agents' group would be given ${dir}`;
  it.each([
    ['/', `"/" is a system directory: ${given('it')}; use a directory below it (e.g. /home/projetos, /srv/projects)`],
    ['/home/', `"/home" is a system directory: ${given('it')}; use a directory below it (e.g. /home/projetos, /srv/projects)`],
    ['/srv', `"/srv" is a system directory: ${given('it')}; use a directory below it (e.g. /home/projetos, /srv/projects)`],
    ['/tmp', `"/tmp" is a system directory: ${given('it')}; use a directory below it (e.g. /home/projetos, /srv/projects)`],
    ['/var/lib', `"/var/lib" is a system directory: ${given('it')}; use a directory below it (e.g. /home/projetos, /srv/projects)`],
    ['/etc', `"/etc" is a system directory: ${given('it')}`],
    ['/etc/projects', `"/etc/projects" is inside the system directory /etc: ${given('it')}`],
    ['/usr/local/work', `"/usr/local/work" is inside the system directory /usr: ${given('it')}`],
    ['/lib64', `"/lib64" is a system directory: ${given('it')}`],
    ['/root/projects', `"/root/projects" is inside the system directory /root: ${given('it')}`],
    ['/proc/self', `"/proc/self" is inside the system directory /proc: ${given('it')}`],
    [
      '/var/lib/agent-users/agentrun1',
      `"/var/lib/agent-users/agentrun1" is inside the system directory /var/lib/agent-users: ${given('it')}`,
    ],
  ])('refuses %p with a ConfigError naming the variable', (root, reason) => {
    expect(() => loadConfig({ AGENT_WORKDIR_ROOTS: `/home/projetos,${root}` })).toThrow(
      new ConfigError(`invalid environment: AGENT_WORKDIR_ROOTS: ${reason}`),
    );
  });

  it("refuses a root that is or holds the service's repository", () => {
    const repo = path.resolve(__dirname, '../..');
    for (const root of [repo, path.dirname(repo)]) {
      expect(() => loadConfig({ AGENT_WORKDIR_ROOTS: root })).toThrow(
        new ConfigError(
          `invalid environment: AGENT_WORKDIR_ROOTS: "${root}" holds the service's own files (${repo}): ${given('them')}; use a directory of its own`,
        ),
      );
    }
  });

  it('accepts a directory below the system directories, and one below the repository', () => {
    const below = path.resolve(__dirname, '../../.data/projects');
    expect(
      loadConfig({ AGENT_WORKDIR_ROOTS: `/home/projetos,/srv/projects,/opt/work,/tmp/agents,/var/projects,${below}` }).orchestration
        .workdirRoots,
    ).toEqual(['/home/projetos', '/srv/projects', '/opt/work', '/tmp/agents', '/var/projects', below]);
  });
});
