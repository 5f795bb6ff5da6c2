import fs from 'node:fs/promises';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import { codeOf, DEPTH_MAX, DIRECTORY_FLAGS, type FilesDeps, openExact, realRoot, segmentsOf, viaDescriptor } from './area';

const NOT_FOUND = 'Arquivo ou pasta não encontrado';

/**
 * DELETE /api/files?path=: a file or a folder with everything in it (contract row 65). The root is
 * refused. A symlink is removed itself, never what it points at, wherever it is in the tree: the
 * folder to delete is opened (through no symlink, area.ts) and each level below is reached through
 * the descriptor of the one above, so a directory an agent swaps for a link meanwhile is not entered.
 */
export async function deleteFileEntry(deps: FilesDeps, relative: string): Promise<void> {
  const segments = segmentsOf(relative);
  if (segments.length === 0) throw new InvalidInputError('Não é permitido excluir o diretório raiz');
  const root = await realRoot(deps, segments);
  if (root === null) throw new NotFoundError(NOT_FOUND);
  const opened = await openExact(root, segments.slice(0, -1), DIRECTORY_FLAGS);
  if (opened.kind !== 'opened') throw new NotFoundError(NOT_FOUND);
  try {
    if (!(await removeChild(viaDescriptor(opened.handle), segments.at(-1)!, 0))) throw new NotFoundError(NOT_FOUND);
  } finally {
    await opened.handle.close();
  }
}

/** Removes `name` of the open directory `parent` (a viaDescriptor path); false when it was not there. */
async function removeChild(parent: string, name: string, depth: number): Promise<boolean> {
  const where = `${parent}/${name}`;
  let stats;
  try {
    stats = await fs.lstat(where);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    if (!stats.isDirectory()) {
      // unlink never follows its last name: a symlink goes, its target stays.
      await fs.unlink(where);
      return true;
    }
    if (depth >= DEPTH_MAX) throw new ConflictError(`A pasta tem mais de ${DEPTH_MAX} níveis; exclua as subpastas antes`);
    const directory = await fs.open(where, DIRECTORY_FLAGS);
    try {
      // The one lstat saw: not another directory moved in between.
      const opened = await directory.stat();
      if (opened.ino !== stats.ino || opened.dev !== stats.dev) throw changed();
      const inside = viaDescriptor(directory);
      // The names first, then the removals: removing while reading a directory may skip entries.
      const names: string[] = [];
      for await (const dirent of await fs.opendir(inside)) names.push(dirent.name);
      for (const child of names) await removeChild(inside, child, depth + 1);
    } finally {
      await directory.close();
    }
    await fs.rmdir(where);
    return true;
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return true; // Someone else removed it meanwhile: gone all the same.
    // Swapped for a link or a file between the look and the act, or written into while emptied.
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENOTEMPTY') throw changed();
    throw error;
  }
}

const changed = () => new ConflictError('A pasta mudou durante a exclusão; tente de novo');
