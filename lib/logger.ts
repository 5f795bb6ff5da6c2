import pino from 'pino';
import { config } from './config';

/**
 * Where a secret could sit in a logged object: request headers (the token, a cookie), a client's
 * error carrying the request it sent (the Elasticsearch client's `meta`), a settings object. The
 * values themselves are never logged on purpose; this is the net under that rule (docs/connections.md).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.headers.authorization',
  'err.meta.meta.request.params.headers.authorization',
  'err.meta.meta.connection.url',
  'err.options.password',
  'err.options.sentinelPassword',
  '*.password',
  '*.apiKey',
  '*.authToken',
  '*.secretsKey',
  '*.sentinelPassword',
  'password',
  'apiKey',
  'authToken',
  'secretsKey',
];

/**
 * The process-wide structured logger (JSON lines on stdout). Writes are synchronous: with pino's
 * asynchronous default, a line still in flight when the process exits can land after, or without,
 * the lines flushed at exit, and shutdown logs would come out of order.
 */
export const logger = pino(
  {
    level: config.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  },
  pino.destination({ dest: 1, sync: true }),
);

export type Logger = pino.Logger;
