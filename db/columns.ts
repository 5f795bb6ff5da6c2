import { customType } from 'drizzle-orm/mysql-core';

/**
 * A JSON value stored as text. MariaDB's JSON type is an alias of LONGTEXT and the
 * driver hands it back as a string, so drizzle's own `json()` would return unparsed text.
 */
export const jsonText = <T>(name: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'longtext',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);
