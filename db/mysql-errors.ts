/** A MariaDB error code, as raised by mysql2 or wrapped by drizzle (the code may sit on a cause). */
export function hasErrorCode(error: unknown, code: string): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** A unique key refused the row. */
export function isDuplicateKey(error: unknown): boolean {
  return hasErrorCode(error, 'ER_DUP_ENTRY');
}

/** Codes of a connection that could not be made or was lost: the server is down or restarting, not the query wrong. */
const CONNECTION_FAILURES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CON_COUNT_ERROR',
];

/** The database could not be reached (down, restarting, its connection lost): the same query may succeed later. */
export function isConnectionFailure(error: unknown): boolean {
  return CONNECTION_FAILURES.some((code) => hasErrorCode(error, code));
}

/**
 * `read`, made again every `everyMs` while the database cannot be reached, for at most `patienceMs`;
 * any other error, or the last connection failure after the patience, is thrown as it is.
 */
export async function untilDatabaseAnswers<T>(
  read: () => Promise<T>,
  options: { patienceMs: number; everyMs?: number; sleep: (ms: number) => Promise<void> },
): Promise<T> {
  const deadline = Date.now() + options.patienceMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!isConnectionFailure(error) || Date.now() >= deadline) throw error;
      await options.sleep(options.everyMs ?? 1_000);
    }
  }
}
