import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mysqlConnectionOptions } from '../../db/connection-options';
import { ConfigError, loadConfig } from '../../lib/config';
import { elasticsearchOptions } from '../../lib/elasticsearch';
import { redisOptions } from '../../lib/redis';
import { temporalConnectionOptions } from '../../temporal/connection';

/** docs/connections.md: each part's settings as its client receives them. */
describe('connection settings', () => {
  let dir: string;
  let ca: string;
  let cert: string;
  let key: string;
  const invalid = (message: string) => new ConfigError(`invalid environment: ${message}`);

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connection-settings-'));
    ca = path.join(dir, 'ca.pem');
    cert = path.join(dir, 'client.pem');
    key = path.join(dir, 'client.key');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
    fs.writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n');
    fs.writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n', { mode: 0o600 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('MySQL', () => {
    it('is plain by default, on host and port', () => {
      expect(mysqlConnectionOptions(loadConfig({ MYSQL_PASSWORD: 'pw' }).mysql)).toEqual({
        host: '127.0.0.1',
        port: 3307,
        user: 'app',
        password: 'pw',
      });
    });

    it('takes the MySQL client modes in any case: REQUIRED does not verify, VERIFY_CA checks the chain only, VERIFY_IDENTITY both', () => {
      const options = (mode: string) => mysqlConnectionOptions(loadConfig({ MYSQL_SSL_MODE: mode, MYSQL_SSL_CA_FILE: ca }).mysql);
      expect(options('required').ssl).toEqual({ ca: fs.readFileSync(ca, 'utf8'), rejectUnauthorized: false });
      expect(options('PREFERRED').ssl).toEqual({ ca: fs.readFileSync(ca, 'utf8'), rejectUnauthorized: false });
      const verifyCa = options('Verify_CA').ssl as { rejectUnauthorized: boolean; checkServerIdentity: () => undefined };
      expect(verifyCa.rejectUnauthorized).toBe(true);
      expect(verifyCa.checkServerIdentity()).toBeUndefined();
      expect(options('VERIFY_IDENTITY').ssl).toEqual({ ca: fs.readFileSync(ca, 'utf8'), rejectUnauthorized: true });
    });

    it('sends a client certificate with its key, and uses a socket instead of host and port', () => {
      const options = mysqlConnectionOptions(
        loadConfig({
          MYSQL_SSL_MODE: 'VERIFY_IDENTITY',
          MYSQL_SSL_CERT_FILE: cert,
          MYSQL_SSL_KEY_FILE: key,
          MYSQL_SOCKET_PATH: '/run/mysqld/mysqld.sock',
        }).mysql,
      );
      expect(options).toMatchObject({
        socketPath: '/run/mysqld/mysqld.sock',
        ssl: { cert: fs.readFileSync(cert, 'utf8'), rejectUnauthorized: true },
      });
      expect(options).not.toHaveProperty('host');
      expect((options.ssl as { key: string }).key).toContain('PRIVATE KEY');
    });

    it.each([
      [{ MYSQL_SSL_MODE: 'sometimes' }, /^invalid environment: MYSQL_SSL_MODE: /],
      [
        { MYSQL_SSL_CA_FILE: '/x.pem' },
        /^invalid environment: MYSQL_SSL_CA_FILE: set MYSQL_SSL_MODE \(REQUIRED, VERIFY_CA or VERIFY_IDENTITY\) to use it$/,
      ],
      [
        { MYSQL_SSL_MODE: 'REQUIRED', MYSQL_SSL_CA_FILE: '/nowhere/ca.pem' },
        /^invalid environment: MYSQL_SSL_CA_FILE: cannot read \/nowhere\/ca.pem \(ENOENT\)$/,
      ],
    ])('refuses %p naming the variable', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });

    it('refuses a certificate without its key, and a key file open to others', () => {
      expect(() => loadConfig({ MYSQL_SSL_MODE: 'REQUIRED', MYSQL_SSL_CERT_FILE: cert })).toThrow(
        invalid('MYSQL_SSL_CERT_FILE: a client certificate needs its key (MYSQL_SSL_KEY_FILE), and the other way round'),
      );
      const open = path.join(dir, 'open.key');
      fs.writeFileSync(open, 'k');
      fs.chmodSync(open, 0o644);
      expect(() => loadConfig({ MYSQL_SSL_MODE: 'REQUIRED', MYSQL_SSL_CERT_FILE: cert, MYSQL_SSL_KEY_FILE: open })).toThrow(
        invalid(`MYSQL_SSL_KEY_FILE: ${open} is open to other users (mode 644): chmod 400 or 440 it`),
      );
    });
  });

  describe('Redis', () => {
    it('reads a rediss:// URL with user, password and database; a separate variable wins over its part', () => {
      const config = loadConfig({ REDIS_URL: 'rediss://svc:p%40ss@cache.example.net:6390/3', REDIS_TLS_SERVERNAME: 'cache.example.net' });
      expect(config.redis).toMatchObject({ host: 'cache.example.net', port: 6390, username: 'svc', password: 'p@ss', db: 3 });
      expect(redisOptions(config.redis, 'api')).toEqual({
        host: 'cache.example.net',
        port: 6390,
        username: 'svc',
        password: 'p@ss',
        db: 3,
        tls: { servername: 'cache.example.net' },
        connectionName: 'api',
      });
      expect(loadConfig({ REDIS_URL: 'redis://u:p@h:1/2', REDIS_PASSWORD: 'other', REDIS_DB: '5' }).redis).toMatchObject({
        password: 'other',
        db: 5,
        tls: null,
      });
    });

    it('builds TLS with the CA from separate variables, and Sentinel with its own password', () => {
      const config = loadConfig({
        REDIS_USERNAME: 'svc',
        REDIS_PASSWORD: 'pw',
        REDIS_TLS: 'true',
        REDIS_TLS_CA_FILE: ca,
        REDIS_SENTINELS: 's1:26379, [::1]:26380',
        REDIS_SENTINEL_NAME: 'primary',
        REDIS_SENTINEL_PASSWORD: 'spw',
      });
      const tls = { ca: fs.readFileSync(ca, 'utf8') };
      expect(redisOptions(config.redis, 'relay')).toEqual({
        sentinels: [
          { host: 's1', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        name: 'primary',
        sentinelPassword: 'spw',
        enableTLSForSentinelMode: true,
        sentinelTLS: tls,
        tls,
        username: 'svc',
        password: 'pw',
        db: 0,
        connectionName: 'relay',
      });
    });

    it.each([
      [{ REDIS_URL: 'http://h:1' }, /^invalid environment: REDIS_URL: a redis:\/\/ or rediss:\/\/ URL$/],
      [
        { REDIS_TLS_CA_FILE: '/ca.pem' },
        /^invalid environment: REDIS_TLS_CA_FILE: set REDIS_TLS=true \(or a rediss:\/\/ REDIS_URL\) to use it$/,
      ],
      [
        { REDIS_SENTINELS: 'h:1' },
        /^invalid environment: REDIS_SENTINEL_NAME: Sentinel needs both REDIS_SENTINELS and REDIS_SENTINEL_NAME$/,
      ],
      [{ REDIS_SENTINELS: 'h', REDIS_SENTINEL_NAME: 'p' }, /^invalid environment: REDIS_SENTINELS: "h" is not host:port$/],
      [{ REDIS_DB: '-1' }, /^invalid environment: REDIS_DB: /],
    ])('refuses %p naming the variable', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });

  describe('Elasticsearch', () => {
    it('takes several nodes, an API key and a CA file', () => {
      const config = loadConfig({
        ELASTICSEARCH_URL: 'https://es1:9200, https://es2:9200',
        ELASTICSEARCH_API_KEY: 'key==',
        ELASTICSEARCH_CA_FILE: ca,
      });
      expect(config.elasticsearch.url).toBe('https://es1:9200');
      expect(elasticsearchOptions(config.elasticsearch)).toEqual({
        nodes: ['https://es1:9200', 'https://es2:9200'],
        auth: { apiKey: 'key==' },
        tls: { ca: fs.readFileSync(ca, 'utf8') },
      });
    });

    it('takes a Cloud ID with a user and password, or a CA fingerprint', () => {
      const cloud = loadConfig({
        ELASTICSEARCH_CLOUD_ID: 'prod:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyRhYmMkZGVm',
        ELASTICSEARCH_USERNAME: 'u',
        ELASTICSEARCH_PASSWORD: 'p',
      });
      expect(elasticsearchOptions(cloud.elasticsearch)).toEqual({
        cloud: { id: 'prod:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyRhYmMkZGVm' },
        auth: { username: 'u', password: 'p' },
      });
      const fingerprint = 'AA:'.repeat(31) + 'AA';
      expect(
        elasticsearchOptions(loadConfig({ ELASTICSEARCH_URL: 'https://es:9200', ELASTICSEARCH_CA_FINGERPRINT: fingerprint }).elasticsearch),
      ).toEqual({
        nodes: ['https://es:9200'],
        caFingerprint: fingerprint,
        tls: { rejectUnauthorized: false },
      });
    });

    it.each([
      [{ ELASTICSEARCH_URL: 'ftp://es' }, /^invalid environment: ELASTICSEARCH_URL/],
      [
        { ELASTICSEARCH_CLOUD_ID: 'c:YWJj', ELASTICSEARCH_URL: 'https://es:9200' },
        /ELASTICSEARCH_CLOUD_ID: set ELASTICSEARCH_CLOUD_ID or ELASTICSEARCH_URL, not both$/,
      ],
      [
        { ELASTICSEARCH_API_KEY: 'k', ELASTICSEARCH_USERNAME: 'u', ELASTICSEARCH_PASSWORD: 'p' },
        /ELASTICSEARCH_API_KEY: set an API key or /,
      ],
      [{ ELASTICSEARCH_USERNAME: 'u' }, /ELASTICSEARCH_USERNAME: a user name needs its password/],
      [{ ELASTICSEARCH_CA_FINGERPRINT: 'abc' }, /ELASTICSEARCH_CA_FINGERPRINT: a SHA-256 fingerprint/],
      [
        { ELASTICSEARCH_CA_FINGERPRINT: 'ab'.repeat(32) },
        /ELASTICSEARCH_CA_FINGERPRINT: a fingerprint needs https:\/\/ nodes in ELASTICSEARCH_URL$/,
      ],
    ])('refuses %p naming the variable', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });

  describe('Temporal (@temporalio/envconfig names)', () => {
    it('turns on TLS with the CA, server name and client certificate', () => {
      const config = loadConfig({
        TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'ns.acct',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
        TEMPORAL_TLS_SERVER_NAME: 'front.example',
        TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: key,
        TEMPORAL_GRPC_META_X_TEAM: 'ranking',
      });
      expect(config.temporal.namespace).toBe('ns.acct');
      expect(temporalConnectionOptions(config.temporal)).toEqual({
        address: 'ns.acct.tmprl.cloud:7233',
        tls: {
          serverNameOverride: 'front.example',
          serverRootCACertificate: Buffer.from(fs.readFileSync(ca)),
          clientCertPair: { crt: Buffer.from(fs.readFileSync(cert)), key: Buffer.from(fs.readFileSync(key)) },
        },
        metadata: { 'x-team': 'ranking' },
      });
    });

    it('an API key implies TLS; TEMPORAL_TLS=false is plain; a profile of a config file is read', () => {
      expect(
        temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'r.aws.api.temporal.io:7233', TEMPORAL_API_KEY: 'k' }).temporal),
      ).toEqual({
        address: 'r.aws.api.temporal.io:7233',
        apiKey: 'k',
        tls: true,
      });
      expect(loadConfig({ TEMPORAL_TLS: 'false' }).temporal.tls).toBe(false);
      const file = path.join(dir, 'temporal.toml');
      fs.writeFileSync(file, '[profile.prod]\naddress = "t.example:7233"\nnamespace = "prod"\napi_key = "from-profile"\n');
      expect(loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' }).temporal).toMatchObject({
        address: 't.example:7233',
        namespace: 'prod',
        apiKey: 'from-profile',
        tls: true,
      });
      expect(() => loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nope' })).toThrow(
        invalid("TEMPORAL_PROFILE: Profile 'nope' not found in config data"),
      );
    });

    it('refuses a config file that is not there, and host verification turned off (the TypeScript SDK cannot)', () => {
      expect(() => loadConfig({ TEMPORAL_CONFIG_FILE: '/nowhere/temporal.toml' })).toThrow(
        invalid('TEMPORAL_CONFIG_FILE: cannot read /nowhere/temporal.toml (ENOENT)'),
      );
      expect(() => loadConfig({ TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' })).toThrow(
        invalid(
          'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: not supported by the TypeScript SDK: set TEMPORAL_TLS_SERVER_NAME to the name in the certificate',
        ),
      );
    });

    it('refuses a client certificate without its key', () => {
      expect(() => loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: cert })).toThrow(
        invalid(
          'TEMPORAL_TLS_CLIENT_CERT_PATH: a client certificate needs its key (TEMPORAL_TLS_CLIENT_KEY_PATH), and the other way round',
        ),
      );
    });
  });
});

describe('NODE_ENV=production', () => {
  const safe = {
    NODE_ENV: 'production',
    AUTH_TOKEN: 'a-token-of-24-characters',
    AGENT_SECRETS_KEY: 'ab'.repeat(32),
    MYSQL_PASSWORD: 'not-the-default',
  };

  it('starts when the role has what it needs, and warns once per plain connection to another machine', () => {
    expect(loadConfig(safe).warnings).toEqual([]);
    expect(
      loadConfig({
        ...safe,
        MYSQL_HOST: 'db.internal',
        REDIS_HOST: '10.0.0.5',
        ELASTICSEARCH_URL: 'http://es.internal:9200',
        TEMPORAL_ADDRESS: 'temporal:7233',
      }).warnings,
    ).toEqual([
      'MySQL: plain connection to db.internal:3307 (set MYSQL_SSL_MODE=VERIFY_IDENTITY)',
      'Redis: plain connection to 10.0.0.5 (set REDIS_TLS=true or a rediss:// REDIS_URL)',
      'Elasticsearch: plain connection to http://es.internal:9200 (use https:// in ELASTICSEARCH_URL)',
      'Temporal: plain connection to temporal:7233 (set TEMPORAL_TLS=true, a client certificate or TEMPORAL_API_KEY)',
    ]);
    expect(loadConfig({ ...safe, NODE_ENV: 'development', MYSQL_HOST: 'db.internal' }).warnings).toEqual([]);
  });

  it('refuses the API without AUTH_TOKEN, the api and agents roles without the secrets key, any role on the development password', () => {
    const { AUTH_TOKEN: _token, ...noToken } = safe;
    expect(() => loadConfig(noToken)).toThrow(
      'invalid environment: AUTH_TOKEN: required with NODE_ENV=production when the process serves the API (PROCESS_ROLES); set it or AUTH_TOKEN_FILE',
    );
    expect(loadConfig({ ...noToken, PROCESS_ROLES: 'agents-worker' }).roles).toEqual(['agents-worker']);
    const { AGENT_SECRETS_KEY: _key, ...noKey } = safe;
    for (const roles of ['api', 'agents-worker'])
      expect(() => loadConfig({ ...noKey, PROCESS_ROLES: roles })).toThrow(
        'invalid environment: AGENT_SECRETS_KEY: required with NODE_ENV=production for the api and agents-worker roles; set it or AGENT_SECRETS_KEY_FILE',
      );
    expect(loadConfig({ ...noKey, PROCESS_ROLES: 'ranking-worker' }).roles).toEqual(['ranking-worker']);
    const { MYSQL_PASSWORD: _password, ...defaultPassword } = safe;
    expect(() => loadConfig({ ...defaultPassword, PROCESS_ROLES: 'ranking-worker' })).toThrow(
      "invalid environment: MYSQL_PASSWORD: the local stack's development password is refused with NODE_ENV=production",
    );
  });
});
