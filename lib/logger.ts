import pino from 'pino';
import { config } from './config';

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
  },
  pino.destination({ dest: 1, sync: true }),
);

export type Logger = pino.Logger;
