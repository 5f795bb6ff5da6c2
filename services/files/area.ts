import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '../errors';

/**
 * The projects area (docs/files.md): the working-directory roots, where agents (unprivileged
 * pool users) write and this service, often root, reads. Everything here is written so that a
 * symlink an agent plants, or swaps in while a request runs, never leads a read, a delete, an
 * archive or a publish outside the area: no path is ever followed through a symlink.
 *
 * How: a request's path is split into plain segments (no `..`, no absolute path, no control
 * character); each step on the way is looked at (lstat) and a link refused before anything is
 * opened through it; what it names is opened with O_NOFOLLOW, and the kernel's own path of the open file
 * (`/proc/self/fd/<fd>`) must be exactly the real root joined with those segments. A symlink at any
 * step would make the two differ (and one at the last step fails the open), so a match proves that
 * none was crossed, whatever changed before the open. Below an open directory, entries are reached
 * through `/proc/self/fd/<fd>/<name>` (the `*at` system calls Node lacks): the directory is the one
 * already open, whatever the path now leads to, and the last name is never followed (lstat, unlink,
 * rmdir, open with O_NOFOLLOW).
 */

/**
 * What the use cases of the area need: its roots (AGENT_WORKDIR_ROOTS, normalised). With several
 * (one per agents host, docs/multi-host.md), the area is their union: the top level lists the
 * folders of every root, and a path goes to the first root holding its top-level name.
 */
export interface FilesDeps {
  roots: readonly string[];
}

/** Longest relative path accepted (the query is bounded before the file system is touched). */
export const RELATIVE_PATH_MAX = 1_000;

/** Deepest folder a recursive delete, archive or publish descends into (each level holds a descriptor open). */
export const DEPTH_MAX = 128;

/** Longest name of one file or folder on Linux (NAME_MAX, in bytes): a longer segment names nothing. */
export const SEGMENT_BYTES_MAX = 255;

export const INVALID_PATH = 'Caminho inválido';

export const invalidPath = (): InvalidInputError => new InvalidInputError(INVALID_PATH);

/**
 * The plain segments of a path relative to the area (`''` and `'.'` are the root); `..`, an
 * absolute path, a NUL or any control character is 'Caminho inválido' (the contract's message for a
 * path that escapes the root), and so is a segment longer than a file name can be (the file system
 * would refuse it with ENAMETOOLONG, a 500; found by schemathesis). Empty and `.` segments are
 * dropped (`a//b/./c` is `a/b/c`).
 */
export function segmentsOf(relative: string): string[] {
  if (relative.length > RELATIVE_PATH_MAX || /\p{Cc}/u.test(relative) || relative.startsWith('/')) throw invalidPath();
  const segments = relative.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..') || segments.some((segment) => Buffer.byteLength(segment) > SEGMENT_BYTES_MAX)) throw invalidPath();
  return segments;
}

/** The real paths of the area's roots that exist (a root nobody has written to yet may not). */
export async function realRoots(deps: FilesDeps): Promise<string[]> {
  const found: string[] = [];
  for (const root of deps.roots) {
    try {
      found.push(await fs.realpath(root));
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
    }
  }
  return found;
}

/**
 * The real path of the root `segments` lie in: the first root whose top level holds `segments[0]`
 * (looked at, never followed; openExact then proves the whole path), else the first root. Null when
 * no root exists.
 */
export async function realRoot(deps: FilesDeps, segments: readonly string[]): Promise<string | null> {
  const roots = await realRoots(deps);
  if (roots.length > 1 && segments.length > 0) {
    for (const root of roots) {
      if (
        await fs.lstat(path.posix.join(root, segments[0]!)).then(
          () => true,
          () => false,
        )
      )
        return root;
    }
  }
  return roots[0] ?? null;
}

export const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The path through which the entries of an open directory are reached without resolving its path again. */
export const viaDescriptor = (handle: FileHandle): string => `/proc/self/fd/${handle.fd}`;

/** Read-only, never through a symlink at the last step, and never blocking on a FIFO an agent left (libuv adds O_CLOEXEC). */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
export const DIRECTORY_FLAGS = READ_FLAGS | constants.O_DIRECTORY;

/** The open thing is the one at `expected`, reached through no symlink: its kernel path is exactly that. */
async function isExactly(handle: FileHandle, expected: string): Promise<boolean> {
  return (await fs.readlink(viaDescriptor(handle))) === expected;
}

export type Opened = { kind: 'opened'; handle: FileHandle } | { kind: 'missing' } | { kind: 'not-a-directory' };

/**
 * Opens `segments` under the real root `root` with `flags` (READ_FLAGS or DIRECTORY_FLAGS).
 * Missing (or a file on the way): `missing`; a file where DIRECTORY_FLAGS asked for a directory:
 * `not-a-directory`; a symlink at any step: 'Caminho inválido'.
 */
export async function openExact(root: string, segments: readonly string[], flags: number): Promise<Opened> {
  const expected = segments.length === 0 ? root : path.posix.join(root, ...segments);
  // A link on the way is refused before anything is opened through it: opening a device an agent
  // linked to (`link -> /dev`) can act by itself. The check after the open covers a link swapped in since.
  for (let depth = 1; depth < segments.length; depth += 1) {
    let stats;
    try {
      stats = await fs.lstat(path.posix.join(root, ...segments.slice(0, depth)));
    } catch (error) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return { kind: 'missing' };
      throw error;
    }
    if (stats.isSymbolicLink()) throw invalidPath();
    if (!stats.isDirectory()) return { kind: 'missing' };
  }
  let handle: FileHandle;
  try {
    handle = await fs.open(expected, flags);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw invalidPath();
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ENOTDIR') {
      // O_DIRECTORY met something else at the last step (or a file stood on the way): which?
      const kind = await lstatKind(expected);
      if (kind === 'symlink') throw invalidPath();
      return kind === 'file' ? { kind: 'not-a-directory' } : { kind: 'missing' };
    }
    // A socket (ENXIO) or anything else that cannot be opened for reading is none of the area's files.
    if (code === 'ENXIO' || code === 'EACCES') return { kind: 'missing' };
    throw error;
  }
  if (await isExactly(handle, expected)) return { kind: 'opened', handle };
  await handle.close();
  throw invalidPath();
}

/** What `where` is (without following it), only to choose the answer after a failed open. */
async function lstatKind(where: string): Promise<'file' | 'symlink' | 'other'> {
  try {
    const stats = await fs.lstat(where);
    return stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'symlink' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * Opens `name` inside the open directory `parent` (a path from viaDescriptor) with `flags`, never
 * following it; null when it is gone, a symlink, or no longer of the kind `flags` asks for (an agent
 * changed it meanwhile): the walks skip it.
 */
export async function openChild(parent: string, name: string, flags: number): Promise<FileHandle | null> {
  try {
    return await fs.open(`${parent}/${name}`, flags);
  } catch (error) {
    if (['ENOENT', 'ELOOP', 'ENOTDIR', 'ENXIO', 'EACCES'].includes(codeOf(error) ?? '')) return null;
    throw error;
  }
}
