import { z } from 'zod';
import { normaliseInSchema } from '../../lib/working-directories';

/**
 * A working directory in a request body (docs/agents.md, "Working directories"). The schema checks
 * what needs no file system (`workingDirectoryPath`: absolute, bounded, no "..", no control
 * characters) and normalises; the use case then checks it against the allowed roots, symlinks resolved
 * (services/working-directories.ts).
 */

/** As lib's `workingDirectoryPath`, or `null`; "" (the panel's empty field) reads as `null` too. */
export const optionalWorkingDirectoryPath = z
  .string()
  .transform((value, context) => (value === '' ? null : normaliseInSchema(value, context)))
  .nullable();
