import pino from 'pino';
import { config } from './config';

/** The process-wide structured logger (JSON lines on stdout). */
export const logger = pino({
  level: config.logLevel,
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type Logger = pino.Logger;
