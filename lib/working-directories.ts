import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * Working directories confined to the allowed roots (docs/agents.md, "Working directories").
 * The API checks what it can see at once; the worker resolves and creates the directory again,
 * as the agent's user, where the run happens (a symlink swapped in between is caught there).
 */

/** The width of the `working_directory` columns. */
export const WORKING_DIRECTORY_MAX = 1_000;

export class WorkingDirectoryError extends Error {
  override name = 'WorkingDirectoryError';
  /**
   * `message` stays English for the configuration's start-up errors (an operator reads them);
   * `ptBrMessage` is what a person reads in the panel: the API's answers (docs/errors.md) and the
   * record of a run refused by the worker.
   */
  constructor(
    message: string,
    readonly ptBrMessage: string = message,
  ) {
    super(message);
  }
}

/**
 * The syntactic rules, without touching the file system: absolute (never resolved against the
 * cwd), bounded, no control characters, no `..` segment; returns the path with duplicate
 * slashes, `.` segments and a trailing slash removed (`/home/projetos/` -> `/home/projetos`).
 */
export function normaliseWorkingDirectory(requested: string): string {
  if (typeof requested !== 'string' || requested.length === 0) {
    throw new WorkingDirectoryError(
      'the working directory must be an absolute path',
      'O diretório de trabalho deve ser um caminho absoluto',
    );
  }
  if (requested.length > WORKING_DIRECTORY_MAX) {
    throw new WorkingDirectoryError(
      `the working directory must have at most ${WORKING_DIRECTORY_MAX} characters`,
      `O diretório de trabalho deve ter no máximo ${WORKING_DIRECTORY_MAX} caracteres`,
    );
  }
  if (/\p{Cc}/u.test(requested)) {
    throw new WorkingDirectoryError(
      'the working directory must not contain control characters',
      'O diretório de trabalho não pode conter caracteres de controle',
    );
  }
  if (!requested.startsWith('/')) {
    throw new WorkingDirectoryError(
      `the working directory must be an absolute path (got "${requested}")`,
      `O diretório de trabalho deve ser um caminho absoluto (recebido "${requested}")`,
    );
  }
  // Refused rather than folded away: "/home/projetos/../../etc" must not read as something else.
  if (requested.split('/').includes('..')) {
    throw new WorkingDirectoryError(
      `the working directory must not contain ".." (got "${requested}")`,
      `O diretório de trabalho não pode conter ".." (recebido "${requested}")`,
    );
  }
  const normalised = path.posix.normalize(requested);
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

/** `normaliseWorkingDirectory` inside a zod transform: a refusal becomes the field's issue. */
export function normaliseInSchema(value: string, context: z.RefinementCtx): string {
  try {
    return normaliseWorkingDirectory(value);
  } catch (error) {
    if (!(error instanceof WorkingDirectoryError)) throw error;
    context.addIssue({ code: 'custom', message: error.ptBrMessage });
    return z.NEVER;
  }
}

/** An absolute path, normalised (`/home/projetos/` -> `/home/projetos`); the file system is not read. */
export const workingDirectoryPath = z.string().transform(normaliseInSchema);

/** Whether `candidate` is `root` or lies below it (both normalised, absolute). */
export function isWithin(candidate: string, root: string): boolean {
  if (root === '/') return true;
  return candidate === root || candidate.startsWith(`${root}/`);
}

/** The first root that holds `candidate` lexically, if any. */
export function lexicalRoot(candidate: string, roots: readonly string[]): string | undefined {
  return roots.find((root) => isWithin(candidate, root));
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/**
 * `absolute` with symlinks resolved: the real path of its longest existing prefix, followed by the
 * part that does not exist yet (and would be created). An existing component that is not a
 * directory, or a symlink that leads nowhere or loops, is refused: creating through it could not
 * be checked here.
 */
export async function resolveExistingPrefix(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    let exists = true;
    try {
      await fs.lstat(current);
    } catch (error) {
      // A missing, non-directory or looping component: its parent tells which.
      if (!['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errorCode(error) ?? '')) throw unreadable(current, error);
      exists = false;
    }
    if (exists) {
      let real: string;
      try {
        real = await fs.realpath(current);
      } catch (error) {
        throw new WorkingDirectoryError(
          `"${current}" is a symbolic link that leads nowhere (${errorCode(error) ?? 'error'})`,
          `"${current}" é um link simbólico que não leva a lugar nenhum (${errorCode(error) ?? 'erro'})`,
        );
      }
      let isDirectory: boolean;
      try {
        isDirectory = (await fs.stat(real)).isDirectory();
      } catch (error) {
        throw unreadable(current, error);
      }
      if (!isDirectory)
        throw new WorkingDirectoryError(`"${current}" exists and is not a directory`, `"${current}" existe e não é um diretório`);
      return missing.length ? path.posix.join(real, ...missing.reverse()) : real;
    }
    const parent = path.posix.dirname(current);
    if (parent === current) return absolute; // Nothing exists, not even "/": leave it as written.
    missing.push(path.posix.basename(current));
    current = parent;
  }
}

function unreadable(where: string, error: unknown): WorkingDirectoryError {
  const reason = errorCode(error) ?? String(error);
  return new WorkingDirectoryError(`"${where}" cannot be checked (${reason})`, `"${where}" não pode ser verificado (${reason})`);
}

/**
 * The normalised absolute path of `requested` if it lies under one of `roots` both as written and
 * after resolving symlinks (each root resolved the same way); otherwise WorkingDirectoryError.
 * A root itself is allowed (the admin panel prefills the projects area). Creates nothing.
 */
export async function confineWorkingDirectory(requested: string, roots: readonly string[]): Promise<string> {
  const normalised = normaliseWorkingDirectory(requested);
  const normalisedRoots = roots.map(normaliseWorkingDirectory);
  const listed = normalisedRoots.join(', ');
  if (!lexicalRoot(normalised, normalisedRoots)) {
    throw new WorkingDirectoryError(
      `the working directory "${normalised}" is outside the allowed roots (${listed})`,
      `O diretório de trabalho "${normalised}" está fora dos diretórios permitidos (${listed})`,
    );
  }
  const real = await resolveExistingPrefix(normalised);
  const realRoots = await Promise.all(normalisedRoots.map(resolveExistingPrefix));
  if (!lexicalRoot(real, realRoots)) {
    throw new WorkingDirectoryError(
      `the working directory "${normalised}" leads outside the allowed roots (${listed}) through a symbolic link (to "${real}")`,
      `O diretório de trabalho "${normalised}" leva para fora dos diretórios permitidos (${listed}) por um link simbólico (para "${real}")`,
    );
  }
  return normalised;
}
