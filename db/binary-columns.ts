import { customType } from 'drizzle-orm/mysql-core';

/** Raw bytes (VARBINARY or BLOB): mysql2 hands them back as Buffers, so they stay Buffers here. */
export const bytes = (name: string, sqlType: 'mediumblob' | 'longblob' | `varbinary(${number})`) =>
  customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => sqlType })(name);

/**
 * Text compared byte for byte (utf8mb4_bin): for names whose case matters, such as environment
 * variable names. The database default (utf8mb4_unicode_ci) would make `api_key` equal `API_KEY`.
 */
export const caseSensitiveVarchar = (name: string, length: number) =>
  customType<{ data: string; driverData: string }>({
    dataType: () => `varchar(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
  })(name);
