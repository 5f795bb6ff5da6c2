import { z } from 'zod';
import { CONTEXT_FILES_MAX } from '../../services/uploads';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/** The request bodies of the execution control routes, with their bounds (docs/agent-executions.md). */

export const TASK_MAX = 100_000;
export const INSTRUCTIONS_MAX = 100_000;
export { CONTEXT_FILES_MAX };
export const SESSION_ID_MAX = 128;
const FILE_PATH_MAX = 1_000;
const FILE_NAME_MAX = 255;

/**
 * A context file as the upload answer gives it and the panel forwards it unchanged (contract 3.1,
 * 3.13): `{originalName, path, size}`. Fields the upload may add later are ignored; the path must be
 * absolute and free of ".." and control characters, and the use case accepts only its own uploads.
 */
const contextFile = z.object({
  originalName: z.string().max(FILE_NAME_MAX).optional(),
  path: z
    .string()
    .min(1)
    .max(FILE_PATH_MAX)
    .refine(
      // eslint-disable-next-line no-control-regex
      (value) => value.startsWith('/') && !/[\u0000-\u001f]/.test(value) && !value.split('/').includes('..'),
      'Deve ser um caminho absoluto, sem ".." nem caracteres de controle',
    ),
  size: z.number().int().min(0).optional(),
});

/** POST /agents/{id}/execute, as the panel sends it (contract 3.1). Unknown fields are refused. */
export const executeBody = z.strictObject({
  task: z.string({ error: 'task é obrigatório' }).trim().min(1, 'task é obrigatório').max(TASK_MAX),
  /** The user's additional instructions for this run ('' or absent: none). */
  instructions: z.string().trim().max(INSTRUCTIONS_MAX).optional(),
  /** Absent or "": the agent's, else the settings' default. Confined to the roots by the use case. */
  workingDirectory: optionalWorkingDirectoryPath.optional(),
  // Repositories: the shape here; the repository and branch are checked with git by the use case (docs/repositories.md).
  repoName: z.string().trim().min(1).max(200).optional(),
  repoBranch: z.string().trim().min(1).max(200).optional(),
  contextFiles: z.array(contextFile).max(CONTEXT_FILES_MAX, `No máximo ${CONTEXT_FILES_MAX} arquivos de contexto`).optional(),
});

/** POST /agents/{id}/continue. */
export const continueBody = z.strictObject({
  sessionId: z.string({ error: 'sessionId é obrigatório' }).trim().min(1, 'sessionId é obrigatório').max(SESSION_ID_MAX),
  message: z.string({ error: 'message é obrigatório' }).trim().min(1, 'message é obrigatório').max(TASK_MAX),
});
