import { confineWorkingDirectory, WorkingDirectoryError } from '../lib/working-directories';
import { InvalidInputError } from './errors';

/**
 * `directory` if it lies under one of `roots` (symlinks resolved), else an InvalidInputError naming
 * `field` (the caller's name of the value, e.g. `body.workingDirectory`). Creates nothing; null and
 * undefined pass through (no working directory given).
 */
export async function confinedWorkingDirectory<T extends string | null | undefined>(
  roots: readonly string[],
  directory: T,
  field: string,
): Promise<T> {
  if (directory === null || directory === undefined) return directory;
  try {
    return (await confineWorkingDirectory(directory, roots)) as T;
  } catch (error) {
    if (error instanceof WorkingDirectoryError) throw new InvalidInputError(`${field}: ${error.ptBrMessage}`);
    throw error;
  }
}

/** `input` with its `workingDirectory` (when given) confined as by `confinedWorkingDirectory`. */
export async function withConfinedWorkingDirectory<T extends { workingDirectory?: string | null }>(
  roots: readonly string[],
  input: T,
  field: string,
): Promise<T> {
  if (input.workingDirectory === undefined || input.workingDirectory === null) return input;
  return { ...input, workingDirectory: await confinedWorkingDirectory(roots, input.workingDirectory, field) };
}
