import { z } from 'zod';
import { confineWorkingDirectory, normaliseInSchema, WorkingDirectoryError } from '../../lib/working-directories';
import { RequestValidationError } from '../errors';

/**
 * A working directory in a request body (docs/agents.md, "Working directories"). The schema checks
 * what needs no file system (`workingDirectoryPath`: absolute, bounded, no "..", no control
 * characters) and normalises; `confinedInput` then checks it against the allowed roots, symlinks resolved.
 */

/** As lib's `workingDirectoryPath`, or `null`; "" (the panel's empty field) reads as `null` too. */
export const optionalWorkingDirectoryPath = z
  .string()
  .transform((value, context) => (value === '' ? null : normaliseInSchema(value, context)))
  .nullable();

/**
 * `directory` if it lies under one of `roots` (symlinks resolved); otherwise 400 naming `field`.
 * Creates nothing. `null` passes through (no working directory given).
 */
export async function confinedInput<T extends string | null | undefined>(directory: T, roots: readonly string[], field: string): Promise<T> {
  if (directory === null || directory === undefined) return directory;
  try {
    return (await confineWorkingDirectory(directory, roots)) as T;
  } catch (error) {
    if (error instanceof WorkingDirectoryError) throw new RequestValidationError(`${field}: ${error.message}`);
    throw error;
  }
}

/** `input` with its `workingDirectory` (when given) confined as by `confinedInput`. */
export async function withConfinedWorkingDirectory<T extends { workingDirectory?: string | null }>(
  input: T,
  roots: readonly string[],
  field: string,
): Promise<T> {
  if (input.workingDirectory === undefined || input.workingDirectory === null) return input;
  return { ...input, workingDirectory: await confinedInput(input.workingDirectory, roots, field) };
}
