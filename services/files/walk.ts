import type { Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import { DEPTH_MAX, openChild, READ_FLAGS, viaDescriptor } from './area';

/** What a walk meets: each folder before what it holds, and each regular file open (the visitor reads it; the walk closes it). */
export interface TreeVisitor {
  /** Skip this entry (and, for a folder, all it holds)? `relative` is its name prefixed like the others. */
  skip?(name: string, relative: string): boolean;
  directory(relative: string, stats: Stats): Promise<void>;
  file(relative: string, handle: FileHandle, stats: Stats): Promise<void>;
}

export class TooDeepError extends Error {
  override name = 'TooDeepError';
}

/**
 * Walks the open directory `handle` depth first, in name order, reaching each entry through its
 * parent's descriptor (area.ts) and opening it with O_NOFOLLOW: symlinks, FIFOs, sockets and whatever
 * vanished or changed kind meanwhile are left out, never followed. `prefix` starts the relative names.
 */
export async function walkTree(handle: FileHandle, prefix: string, visitor: TreeVisitor, depth = 0): Promise<void> {
  if (depth >= DEPTH_MAX) throw new TooDeepError(`mais de ${DEPTH_MAX} pastas aninhadas`);
  const inside = viaDescriptor(handle);
  const names: string[] = [];
  for await (const dirent of await fs.opendir(inside)) {
    if ((dirent.isDirectory() || dirent.isFile()) && !visitor.skip?.(dirent.name, prefix === '' ? dirent.name : `${prefix}/${dirent.name}`))
      names.push(dirent.name);
  }
  names.sort();
  for (const name of names) {
    const relative = prefix === '' ? name : `${prefix}/${name}`;
    // O_DIRECTORY is not asked: a name that changed kind since it was read is opened for what it now is.
    const child = await openChild(inside, name, READ_FLAGS);
    if (child === null) continue;
    try {
      const stats = await child.stat();
      if (stats.isDirectory()) {
        await visitor.directory(relative, stats);
        await walkTree(child, relative, visitor, depth + 1);
      } else if (stats.isFile()) {
        await visitor.file(relative, child, stats);
      }
    } finally {
      await child.close();
    }
  }
}
