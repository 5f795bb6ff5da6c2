import path from 'node:path';
import { z } from 'zod';
import { INSTRUCTIONS_MAX } from './agent-input';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/** The request bodies of the execution control routes, with their bounds (docs/agent-executions.md). */

export const TASK_MAX = 100_000;
export const CONTEXT_FILES_MAX = 100;
export const SESSION_ID_MAX = 128;

/** A path relative to the working directory that stays inside it. */
const contextFile = z
  .string()
  .min(1)
  .max(1_000)
  .refine(
    (value) => !path.isAbsolute(value) && !value.includes('\u0000') && !value.split(/[\\/]/).includes('..'),
    'a path relative to the working directory, without ".."',
  );

/** POST /agents/{id}/execute. Unknown fields are refused. */
export const executeBody = z.strictObject({
  task: z.string().trim().min(1).max(TASK_MAX),
  /** Absent: the agent's instructions. */
  instructions: z.string().max(INSTRUCTIONS_MAX).optional(),
  /** Absent or "": the agent's, else the settings' default. Confined to the roots by the route. */
  workingDirectory: optionalWorkingDirectoryPath.optional(),
  // Repositories are part of the request's shape; checked here, refused by the route (not supported yet).
  repoName: z.string().trim().min(1).max(200).optional(),
  repoBranch: z.string().trim().min(1).max(200).optional(),
  contextFiles: z.array(contextFile).max(CONTEXT_FILES_MAX).optional(),
});

/** POST /agents/{id}/continue. */
export const continueBody = z.strictObject({
  sessionId: z.string().trim().min(1).max(SESSION_ID_MAX),
  message: z.string().trim().min(1).max(TASK_MAX),
});

/** The task as stored and run: the context files, when given, are listed after it. */
export function taskWithContextFiles(task: string, contextFiles: string[] | undefined): string {
  if (!contextFiles?.length) return task;
  return `${task}\n\nContext files:\n${contextFiles.map((file) => `- ${file}`).join('\n')}`;
}
