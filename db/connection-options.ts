import type { ConnectionOptions } from 'mysql2';
import type { Config } from '../lib/config';

/**
 * How every MySQL connection of the service reaches the server (the pool, the migrator, the scripts):
 * host and port or a Unix socket, the user, and TLS by MYSQL_SSL_MODE in the MySQL client's own
 * meaning: REQUIRED encrypts without checking the certificate, VERIFY_CA checks it against the CA,
 * VERIFY_IDENTITY also checks the host name; PREFERRED is REQUIRED here (docs/connections.md).
 */
export function mysqlConnectionOptions(settings: Config['mysql']): ConnectionOptions {
  const target = settings.socketPath ? { socketPath: settings.socketPath } : { host: settings.host, port: settings.port };
  return { ...target, user: settings.user, password: settings.password, ...(settings.tls ? { ssl: mysqlSsl(settings.tls) } : {}) };
}

function mysqlSsl(tls: NonNullable<Config['mysql']['tls']>): NonNullable<ConnectionOptions['ssl']> {
  const verify = tls.mode === 'VERIFY_CA' || tls.mode === 'VERIFY_IDENTITY';
  return {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    rejectUnauthorized: verify,
    // VERIFY_CA: the chain, not the name (the MySQL client's meaning).
    ...(tls.mode === 'VERIFY_CA' ? { checkServerIdentity: () => undefined } : {}),
  };
}
