import fs from 'node:fs/promises';
import type { Database } from '../../db';
import type { StoredContextFile } from '../../db/schema';
import { uploadsByPath } from '../../db/uploads-store';
import { InvalidInputError } from '../errors';

/** An execute request's `contextFiles` (contract 3.1), as the upload answered them and the panel sends them back. */
export interface ContextFileRequest {
  path: string;
  originalName?: string;
  size?: number;
}

/** At most this many context files per execute: the upload's own limit per request. */
export const CONTEXT_FILES_MAX = 20;

/**
 * The context files an execute names, checked (docs/uploads.md): each path must be one POST /uploads
 * stored (a row with that exact path) and still on disk; anything else is InvalidInputError, so
 * nothing is started. Answers the stored names and sizes (what the service wrote, not what the client
 * says), without duplicates, in the request's order.
 */
export async function storedContextFiles(db: Database, requested: readonly ContextFileRequest[] | undefined): Promise<StoredContextFile[]> {
  if (!requested?.length) return [];
  if (requested.length > CONTEXT_FILES_MAX) throw new InvalidInputError(`No máximo ${CONTEXT_FILES_MAX} arquivos de contexto`);
  const rows = new Map(
    (
      await uploadsByPath(
        db,
        requested.map((file) => file.path),
      )
    ).map((row) => [row.path, row]),
  );
  const files: StoredContextFile[] = [];
  for (const { path } of requested) {
    const row = rows.get(path);
    if (!row) throw new InvalidInputError(`O arquivo de contexto ${path.slice(0, 300)} não é um envio deste serviço (POST /api/uploads)`);
    const present = await fs.stat(path).then(
      (stat) => stat.isFile(),
      () => false,
    );
    if (!present) throw new InvalidInputError(`O arquivo de contexto ${path.slice(0, 300)} não está mais disponível: envie-o de novo`);
    if (!files.some((file) => file.path === path)) files.push({ originalName: row.originalName, path: row.path, size: row.size });
  }
  return files;
}

/**
 * The text an agent receives with its context files: the legacy server's appendix (contract 3.1), one
 * "path (originalName)" line each after the task. For a pipeline it goes with the run's input, that is
 * into the first step's prompt.
 */
export function withContextFiles(text: string, files: readonly StoredContextFile[]): string {
  if (files.length === 0) return text;
  const lines = files.map((file) => `- ${file.path} (${file.originalName})`);
  return `${text}\n\nArquivos de contexto:\n${lines.join('\n')}`;
}
