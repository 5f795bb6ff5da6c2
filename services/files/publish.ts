import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../errors';
import { codeOf, DIRECTORY_FLAGS, type FilesDeps, invalidPath, openExact, realRoot, segmentsOf } from './area';
import { pushSnapshot, type PublishedRepository } from './publish-repository';
import { TooDeepError, walkTree } from './walk';

/** Bounds of one snapshot: a published site is a copy in the service's data area. */
export const PUBLISH_FILES_MAX = 10_000;
export const PUBLISH_BYTES_MAX = 200 * 1024 * 1024;

export interface PublishDeps extends FilesDeps {
  /** Where snapshots live (sitesDirectory), one folder per published project. */
  sitesDir: string;
  /** GIT_PUBLISH_DIR: a bare repository per project there receives each snapshot; null: none. */
  publishRepositoriesDir?: string | null;
}

/** The published sites' folder in the data area (AGENT_DATA_DIR): the service's own, not the agents'. */
export function sitesDirectory(dataDir: string): string {
  return path.join(dataDir, 'sites');
}

/** The path a project's site is served at (api/sites.ts). */
export function sitePath(projectName: string): string {
  return `/sites/${encodeURIComponent(projectName)}/`;
}

/** Contract 3.15, row 66: what `FilesUI.publishProject` shows. */
export const publicationSchema = z
  .object({
    status: z.literal('Publicado'),
    siteUrl: z.string().meta({ description: '<esquema>://<Host>/sites/<nome>/, onde a cópia é servida' }),
    /** The repository the snapshot was pushed to (GIT_PUBLISH_DIR); null when none is configured or the push failed. */
    repoUrl: z
      .string()
      .nullable()
      .meta({ description: 'O repositório que recebeu a cópia (GIT_PUBLISH_DIR); null sem um, ou se o push falhou' }),
    projectName: z.string(),
    message: z.string(),
  })
  .meta({ id: 'Publication' });
export type Publication = z.infer<typeof publicationSchema>;

/** Snapshots of one name are swapped in one at a time (two publishes of a project racing). */
const swapping = new Map<string, Promise<unknown>>();

/**
 * POST /api/files/publish {path}: copies the top-level folder `relative` of the area (a snapshot:
 * later changes need another publish) to the sites folder, replacing its previous snapshot at once,
 * and answers where it is served (`origin` + sitePath). Dot-files (`.git`, `.env`), symlinks and
 * special files are not copied; nothing is followed (walk.ts).
 */
export async function publishProject(deps: PublishDeps, relative: string | undefined, origin: string): Promise<Publication> {
  if (relative === undefined || relative.trim() === '') throw new InvalidInputError('path é obrigatório');
  const segments = segmentsOf(relative);
  if (segments.length !== 1 || segments[0]!.startsWith('.')) throw invalidPath();
  const projectName = segments[0]!;
  const root = await realRoot(deps, segments);
  if (root === null) throw new NotFoundError('Projeto não encontrado');
  const opened = await openExact(root, segments, DIRECTORY_FLAGS);
  if (opened.kind === 'missing') throw new NotFoundError('Projeto não encontrado');
  if (opened.kind === 'not-a-directory') throw new InvalidInputError('Caminho não é uma pasta');
  const { handle } = opened;
  await fs.mkdir(deps.sitesDir, { recursive: true, mode: 0o755 });
  const staging = await fs.mkdtemp(path.join(deps.sitesDir, '.staging-'));
  let repository: PublishedRepository;
  try {
    let files = 0;
    let bytes = 0;
    await walkTree(handle, '', {
      skip: (name) => name.startsWith('.'),
      directory: async (name) => {
        await fs.mkdir(path.join(staging, name), { mode: 0o755 });
      },
      file: async (name, file, stats) => {
        files += 1;
        bytes += stats.size;
        if (files > PUBLISH_FILES_MAX || bytes > PUBLISH_BYTES_MAX) {
          throw new InvalidInputError(
            `Projeto grande demais para publicar (no máximo ${PUBLISH_FILES_MAX} arquivos e ${PUBLISH_BYTES_MAX / 1024 / 1024} MB)`,
          );
        }
        const copy = await fs.open(path.join(staging, name), 'wx', 0o644);
        if (stats.size === 0) return copy.close();
        await pipeline(file.createReadStream({ start: 0, end: stats.size - 1, autoClose: false }), copy.createWriteStream());
      },
    });
    await oneAtATime(projectName, () => swapIn(deps.sitesDir, staging, projectName));
    repository = await oneAtATime(projectName, () =>
      pushSnapshot(deps.publishRepositoriesDir ?? null, projectName, path.join(deps.sitesDir, projectName), deps.sitesDir),
    );
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    if (error instanceof TooDeepError) throw new InvalidInputError(`Projeto com pastas aninhadas demais para publicar (${error.message})`);
    throw error;
  } finally {
    await handle.close();
  }
  const siteUrl = `${origin}${sitePath(projectName)}`;
  return {
    status: 'Publicado',
    siteUrl,
    repoUrl: repository.repoUrl,
    projectName,
    message:
      `Cópia de "${projectName}" publicada em ${siteUrl}` +
      (repository.repoUrl ? ` e enviada para o repositório ${repository.repoUrl}` : '') +
      `; alterações posteriores exigem publicar de novo.` +
      (repository.problem ? ` Repositório: ${repository.problem}.` : ''),
  };
}

/** The new snapshot takes the name's place; the previous one is removed after. */
async function swapIn(sitesDir: string, staging: string, projectName: string): Promise<void> {
  const target = path.join(sitesDir, projectName);
  const previous = path.join(sitesDir, `.previous-${randomUUID()}`);
  let replaced = true;
  try {
    await fs.rename(target, previous);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    replaced = false;
  }
  await fs.rename(staging, target);
  if (replaced) await fs.rm(previous, { recursive: true, force: true });
}

async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = swapping.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(work);
  swapping.set(key, mine);
  try {
    return await mine;
  } finally {
    if (swapping.get(key) === mine) swapping.delete(key);
  }
}
