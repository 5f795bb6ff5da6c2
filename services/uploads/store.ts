import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { Database } from '../../db';
import { insertUploads, type Upload } from '../../db/uploads-store';
import type { StoredContextFile } from '../../db/schema';
import { agentGroupMembership, agentIsolation } from '../../lib/agent-isolation';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import { InvalidInputError, UseCaseError } from '../errors';
import { originalNameOf, sanitisedFileName } from './names';

/**
 * POST /uploads (contract 3.13; docs/uploads.md): one request's files go, as they arrive, to a new
 * directory `<uploads dir>/<batch uuid>/<timestamp>-<sanitised name>`, and are recorded in `uploads`
 * only when the whole request was accepted; a refused request leaves no file and no row.
 */

export interface UploadsDeps {
  db: Database;
  logger: Logger;
  uploads: Config['orchestration']['uploads'];
}

/** The answer: the batch id as the legacy `sessionId`, and each file as the execute body's `contextFiles` take it. */
export const receivedUploadsSchema = z
  .object({
    sessionId: z.string().meta({ description: 'O id do lote (uuid), a pasta dos arquivos' }),
    files: z
      .array(
        z.object({
          originalName: z.string().meta({ description: 'O nome do cliente, sem caracteres de controle, no máximo 255' }),
          path: z.string().meta({ description: 'O caminho absoluto do arquivo guardado' }),
          size: z.number().int().meta({ description: 'Bytes' }),
        }) satisfies z.ZodType<StoredContextFile>,
      )
      .meta({ description: 'Os arquivos, na ordem enviada: o `contextFiles` de uma execução os recebe assim' }),
  })
  .meta({ id: 'ReceivedUploads' });
export type ReceivedUploads = z.infer<typeof receivedUploadsSchema>;

/** A file over the size limit (the route answers 413). */
export class FileTooLargeError extends UseCaseError {
  override name = 'FileTooLargeError';
  readonly kind = 'invalid';
}

/** Writes one received file; `filename` is the client's. */
export type SaveFile = (filename: string, content: Readable) => Promise<void>;

/**
 * Who may read the files: with the pool of agent users (the service is root), the directories belong
 * to root and the pool's group, which may enter them (0710 for the uploads directory: no listing of
 * other batches; 0750 for a batch) and read the files (0640). The same group and modes when the
 * service is not root but a member of the pool's group (the image's API: the agents run as the pool's
 * users in another container, docs/image.md); the files then stay the service user's. Otherwise agents
 * run as the service's own user, and nobody else needs anything.
 */
function access(): { gid: number | null; root: number; batch: number; file: number } {
  const isolation = agentIsolation();
  const gid = isolation.mode === 'user-pool' ? isolation.gid : agentGroupMembership();
  return gid !== null ? { gid, root: 0o710, batch: 0o750, file: 0o640 } : { gid: null, root: 0o700, batch: 0o700, file: 0o600 };
}

const checkedDirs = new Set<string>();

/**
 * Logs (once per directory and process) an ancestor of the uploads directory the pool's group cannot
 * enter: the agents would get "Permission denied" reading every upload (docs/uploads.md).
 */
async function warnUnreachable(dir: string, gid: number, logger: Logger): Promise<void> {
  if (checkedDirs.has(dir)) return;
  checkedDirs.add(dir);
  for (let parent = path.dirname(dir); ; parent = path.dirname(parent)) {
    const stat = await fs.stat(parent);
    const enterable = (stat.mode & 0o001) !== 0 || (stat.gid === gid && (stat.mode & 0o010) !== 0);
    if (!enterable) {
      logger.warn(
        { uploadsDir: dir, closed: parent },
        `the agents' users cannot enter ${parent}, so they cannot read uploads: chmod o+x it or move AGENT_UPLOADS_DIR`,
      );
      return;
    }
    if (parent === path.dirname(parent)) return;
  }
}

async function own(target: string, gid: number | null, mode: number): Promise<void> {
  // The owner stays this process's user (root with the pool, the service user otherwise): only the group changes.
  if (gid !== null) await fs.chown(target, process.getuid?.() ?? 0, gid);
  await fs.chmod(target, mode);
}

/** Counts the bytes going through, and fails past `max` (the parser stops a file one byte past the limit). */
function sizeGuard(max: number, onSize: (size: number) => void, tooLarge: () => Error): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      onSize(size);
      done(size > max ? tooLarge() : null, chunk);
    },
  });
}

/**
 * Receives one request's files: `read` parses the request and calls `save` for each file part (in
 * order; it waits for each). Refused (InvalidInputError, FileTooLargeError, or whatever `read` throws):
 * the batch directory is removed with every file, partial ones included, and nothing is recorded.
 */
export async function receiveUploads(
  deps: UploadsDeps,
  clientId: string | null,
  read: (save: SaveFile) => Promise<void>,
): Promise<ReceivedUploads> {
  const { dir, maxFileBytes, maxFiles } = deps.uploads;
  const modes = access();
  await fs.mkdir(dir, { recursive: true });
  await own(dir, modes.gid, modes.root);
  if (modes.gid !== null) await warnUnreachable(dir, modes.gid, deps.logger);
  const batchId = randomUUID();
  const batchDir = path.join(dir, batchId);
  await fs.mkdir(batchDir);
  const rows: Upload[] = [];
  const save: SaveFile = async (filename, content) => {
    if (rows.length >= maxFiles) throw new InvalidInputError(`No máximo ${maxFiles} arquivos por envio`);
    const originalName = originalNameOf(filename);
    const stored = await freeName(batchDir, sanitisedFileName(filename));
    let size = 0;
    const tooLarge = () => new FileTooLargeError(`${originalName} é maior que o limite de ${maxFileBytes} bytes por arquivo`);
    await pipeline(
      content,
      sizeGuard(maxFileBytes, (bytes) => (size = bytes), tooLarge),
      createWriteStream(stored, { flags: 'wx', mode: modes.file }),
    );
    // A parser that cuts a file at its limit (busboy) marks it truncated rather than failing it.
    if (size > maxFileBytes || (content as Readable & { truncated?: boolean }).truncated) throw tooLarge();
    await own(stored, modes.gid, modes.file);
    rows.push({ id: randomUUID(), batchId, path: stored, originalName, size, clientId, createdAt: new Date() });
  };
  try {
    await own(batchDir, modes.gid, modes.batch);
    await read(save);
    if (rows.length === 0) throw new InvalidInputError('Nenhum arquivo: envie-os como partes multipart/form-data chamadas "files"');
    await insertUploads(deps.db, rows);
  } catch (error) {
    await fs
      .rm(batchDir, { recursive: true, force: true })
      .catch((rmError: unknown) => deps.logger.error({ err: rmError, batchDir }, 'refused upload not removed'));
    throw error;
  }
  deps.logger.info({ batchId, files: rows.length, bytes: rows.reduce((sum, row) => sum + row.size, 0) }, 'files uploaded');
  return { sessionId: batchId, files: rows.map(({ originalName, path: filePath, size }) => ({ originalName, path: filePath, size })) };
}

/** `<dir>/<timestamp>-<name>` (the legacy layout), numbered when two files of one request share it. */
async function freeName(dir: string, name: string): Promise<string> {
  const stamp = Date.now();
  for (let n = 0; ; n += 1) {
    const candidate = path.join(dir, n === 0 ? `${stamp}-${name}` : `${stamp}-${n}-${name}`);
    try {
      await fs.access(candidate);
    } catch {
      return candidate;
    }
  }
}
