import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { checkConnections } from '../../workers/connection-check';
import { unusedPort } from '../support/ports';
import { baseProcessEnv, secureServiceEnv, securePortsEnv } from '../support/secure-stack';
import { startSourceProcess, waitForLog } from '../support/processes';

/**
 * "Failing clearly" (docs/connections.md): against the secured local stack (test/global-setup.ts starts
 * it), each setting an operator can get wrong is reached once at start and told in one line naming the
 * part, the cause and the variable; a part not reachable yet is waited for.
 */
describe('the first contact with each part, with one setting wrong', () => {
  let dir: string;
  let otherCa: string;
  let wrongSecret: string;
  let service: Record<string, string>;
  let ports: Record<string, string>;
  /** The secured stack's settings with `change` applied (undefined removes a variable). */
  const withChange = (change: Record<string, string | undefined>) => {
    const env: Record<string, string> = { ...service };
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    return env;
  };
  const lines = async (change: Record<string, string | undefined>) =>
    Object.values(await checkConnections(loadConfig(withChange(change))))
      .filter((failure) => failure !== null && failure !== undefined)
      .map((failure) => `${failure.permanent ? 'fatal' : 'wait'}: ${failure.line}`);
  const noClientCertificate = { TEMPORAL_TLS_CLIENT_CERT_PATH: undefined, TEMPORAL_TLS_CLIENT_KEY_PATH: undefined };

  beforeAll(() => {
    service = secureServiceEnv();
    ports = securePortsEnv();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connection-failures-'));
    // A CA of its own: the stack's certificates do not chain to it.
    otherCa = path.join(dir, 'other-ca.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'other-ca.key'),
        '-out',
        otherCa,
        '-days',
        '1',
        '-subj',
        '/CN=Another CA',
      ],
      {
        stdio: 'ignore',
      },
    );
    wrongSecret = path.join(dir, 'wrong-secret');
    fs.writeFileSync(wrongSecret, 'not-the-right-secret\n', { mode: 0o400 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reaches every part with the secured stack settings as they are', async () => {
    expect(await lines({})).toEqual([]);
  });

  it.each([
    [
      'a wrong password',
      () => ({ MYSQL_PASSWORD_FILE: wrongSecret }),
      'MySQL: the server refused the user or password (MYSQL_USER, MYSQL_PASSWORD)',
    ],
    [
      'no TLS for a user that requires it',
      () => ({ MYSQL_SSL_MODE: 'DISABLED', MYSQL_SSL_CA_FILE: undefined }),
      'MySQL: the server refused the user or password, or requires TLS of this user (MYSQL_USER, MYSQL_PASSWORD, MYSQL_SSL_MODE)',
    ],
    ['another CA', () => ({ MYSQL_SSL_CA_FILE: otherCa }), 'MySQL: TLS certificate verification failed (MYSQL_SSL_CA_FILE)'],
    [
      'TLS against the plain stack',
      () => ({ MYSQL_PORT: '3307', MYSQL_PASSWORD_FILE: undefined, MYSQL_PASSWORD: 'app' }),
      'MySQL: the server offers no TLS (MYSQL_SSL_MODE)',
    ],
  ])('MySQL: %s', async (_case, change, line) => {
    expect(await lines(change())).toEqual([`fatal: ${line}`]);
  });

  it.each([
    [
      'a wrong password',
      () => ({ REDIS_PASSWORD_FILE: wrongSecret }),
      'Redis: the server refused the user or password (REDIS_USERNAME, REDIS_PASSWORD)',
    ],
    [
      'plain against its TLS port',
      () => ({ REDIS_TLS: undefined, REDIS_TLS_CA_FILE: undefined }),
      'Redis: the server closed a plain connection (it probably expects TLS) (REDIS_TLS)',
    ],
    ['another CA', () => ({ REDIS_TLS_CA_FILE: otherCa }), 'Redis: TLS certificate verification failed (REDIS_TLS_CA_FILE)'],
    [
      'TLS against the plain stack',
      () => ({ REDIS_PORT: '6380', REDIS_USERNAME: undefined, REDIS_PASSWORD_FILE: undefined }),
      'Redis: TLS was configured but the server speaks plain text (REDIS_TLS)',
    ],
  ])('Redis: %s', async (_case, change, line) => {
    expect(await lines(change())).toEqual([`fatal: ${line}`]);
  });

  it.each([
    [
      'a wrong API key',
      () => ({ ELASTICSEARCH_API_KEY_FILE: wrongSecret }),
      'Elasticsearch: the server refused the credentials (ELASTICSEARCH_API_KEY, ELASTICSEARCH_USERNAME, ELASTICSEARCH_PASSWORD)',
    ],
    [
      'http:// against its TLS port',
      () => ({ ELASTICSEARCH_URL: ports.SECURE_ELASTICSEARCH_URL!.replace('https:', 'http:'), ELASTICSEARCH_CA_FILE: undefined }),
      'Elasticsearch: the server closed a plain connection (it probably expects TLS) (ELASTICSEARCH_URL)',
    ],
    [
      'another CA',
      () => ({ ELASTICSEARCH_CA_FILE: otherCa }),
      'Elasticsearch: TLS certificate verification failed (ELASTICSEARCH_CA_FILE)',
    ],
    [
      'https:// against the plain stack',
      () => ({ ELASTICSEARCH_URL: 'https://127.0.0.1:9201', ELASTICSEARCH_API_KEY_FILE: undefined }),
      'Elasticsearch: TLS was configured but the server speaks plain text (ELASTICSEARCH_URL)',
    ],
  ])('Elasticsearch: %s', async (_case, change, line) => {
    expect(await lines(change())).toEqual([`fatal: ${line}`]);
  });

  it.each([
    [
      'no client certificate on the mTLS port',
      () => noClientCertificate,
      'Temporal: the server refused the API key or client certificate (TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH)',
    ],
    [
      'a wrong API key on the API-key port',
      () => ({ ...noClientCertificate, TEMPORAL_ADDRESS: ports.SECURE_TEMPORAL_APIKEY_ADDRESS, TEMPORAL_API_KEY_FILE: wrongSecret }),
      'Temporal: the server refused the API key or client certificate (TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH)',
    ],
    [
      'plain against its TLS port',
      () => ({
        ...noClientCertificate,
        TEMPORAL_TLS: 'false',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: undefined,
        TEMPORAL_TLS_SERVER_NAME: undefined,
      }),
      'Temporal: the server closed a plain connection (it probably expects TLS) (TEMPORAL_TLS)',
    ],
    [
      'another CA',
      () => ({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: otherCa }),
      'Temporal: TLS certificate verification failed (TEMPORAL_TLS_SERVER_CA_CERT_PATH)',
    ],
    [
      'TLS against the plain stack',
      () => ({ ...noClientCertificate, TEMPORAL_ADDRESS: '127.0.0.1:7233' }),
      'Temporal: TLS was configured but the server speaks plain text (TEMPORAL_TLS)',
    ],
  ])('Temporal: %s', async (_case, change, line) => {
    expect(await lines(change())).toEqual([`fatal: ${line}`]);
  });

  it("Elasticsearch: the CA's fingerprint instead of its file is accepted; another fingerprint is refused", async () => {
    const fingerprint = execFileSync('openssl', ['x509', '-in', ports.SECURE_CA_FILE!, '-noout', '-fingerprint', '-sha256'], {
      encoding: 'utf8',
    })
      .trim()
      .replace(/^.*=/, '');
    expect(await lines({ ELASTICSEARCH_CA_FILE: undefined, ELASTICSEARCH_CA_FINGERPRINT: fingerprint })).toEqual([]);
    const other = execFileSync('openssl', ['x509', '-in', otherCa, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' })
      .trim()
      .replace(/^.*=/, '');
    expect(await lines({ ELASTICSEARCH_CA_FILE: undefined, ELASTICSEARCH_CA_FINGERPRINT: other })).toEqual([
      'fatal: Elasticsearch: TLS certificate fingerprint does not match (ELASTICSEARCH_CA_FINGERPRINT)',
    ]);
  });

  it('the right API key on the API-key port is accepted', async () => {
    expect(
      await lines({
        ...noClientCertificate,
        TEMPORAL_ADDRESS: ports.SECURE_TEMPORAL_APIKEY_ADDRESS,
        TEMPORAL_API_KEY_FILE: ports.SECURE_TEMPORAL_API_KEY_FILE,
      }),
    ).toEqual([]);
  });

  it('ends the process with exit code 1 and only the lines of the parts that cannot work', async () => {
    const env = {
      ...baseProcessEnv(),
      ...withChange({ REDIS_PASSWORD_FILE: wrongSecret, ELASTICSEARCH_CA_FILE: otherCa }),
      PROCESS_ROLES: 'api',
      HTTP_PORT: String(await unusedPort()),
    };
    const started = startSourceProcess('main.ts', env);
    expect(await started.exited).toBe(1);
    const stderrLines = started
      .output()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('{'));
    expect(stderrLines.sort()).toEqual([
      'Elasticsearch: TLS certificate verification failed (ELASTICSEARCH_CA_FILE)',
      'Redis: the server refused the user or password (REDIS_USERNAME, REDIS_PASSWORD)',
    ]);
  });

  it('waits for a part not reachable yet: the API starts and says so', async () => {
    const env = {
      ...baseProcessEnv(),
      ...withChange({ REDIS_PORT: String(await unusedPort()) }),
      PROCESS_ROLES: 'api',
      LOG_LEVEL: 'info',
      HTTP_PORT: String(await unusedPort()),
    };
    const started = startSourceProcess('main.ts', env);
    try {
      await waitForLog(started, 'ready');
      expect(started.output()).toMatch(/"level":40,[^\n]*"msg":"Redis: not reachable yet \([^)]*ECONNREFUSED[^)]*\): waiting"/);
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
    }
  });

  it('refuses a production start without the token, naming the variable, before contacting anything', async () => {
    const { AUTH_TOKEN_FILE: _token, ...withoutToken } = service;
    const started = startSourceProcess('main.ts', { ...baseProcessEnv(), ...withoutToken, NODE_ENV: 'production', PROCESS_ROLES: 'api' });
    expect(await started.exited).toBe(1);
    expect(started.output()).toBe(
      'invalid environment: AUTH_TOKEN: required with NODE_ENV=production when the process serves the API (PROCESS_ROLES); set it or AUTH_TOKEN_FILE\n',
    );
  });
});
