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
