import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { InvalidInputError, NotFoundError } from '../errors';
import { DIRECTORY_FLAGS, type FilesDeps, openExact, READ_FLAGS, realRoot, realRoots, segmentsOf } from './area';
import { walkTree } from './walk';

/** The archive's name (and its top folder) when the whole area is downloaded, as the legacy server's. */
export const ROOT_ARCHIVE_NAME = 'projetos';

export interface FileDownload {
  /** The file's own name, for Content-Disposition. */
  name: string;
  size: number;
  /** Reads the file that was checked (its descriptor), closed at its end or when destroyed. */
  stream: Readable;
}

/** GET /api/files/download?path= (row 67): one regular file of the area, opened through no symlink. */
export async function openFileDownload(deps: FilesDeps, relative: string): Promise<FileDownload> {
  const segments = segmentsOf(relative);
  const root = await realRoot(deps, segments);
  if (segments.length === 0) throw new InvalidInputError('Caminho não é um arquivo');
  if (root === null) throw new NotFoundError('Arquivo não encontrado');
  const opened = await openExact(root, segments, READ_FLAGS);
  if (opened.kind !== 'opened') throw new NotFoundError('Arquivo não encontrado');
  const { handle } = opened;
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (!stats.isFile()) {
    await handle.close();
    throw new InvalidInputError('Caminho não é um arquivo');
  }
  const name = segments.at(-1)!;
  if (stats.size === 0) {
    await handle.close();
    return { name, size: 0, stream: Readable.from([]) };
  }
  // Exactly the size announced in Content-Length, even if an agent appends meanwhile.
  return { name, size: stats.size, stream: handle.createReadStream({ start: 0, end: stats.size - 1 }) };
}

export interface FolderArchive {
  /** `<folder>.tar.gz`, `projetos.tar.gz` for the root. */
  filename: string;
  /** The gzip stream of the tar being written as the folder is walked. */
  stream: Readable;
}

/**
 * GET /api/files/download-folder?path= (row 68): the folder as a `.tar.gz` streamed while it is
 * walked (no temporary archive). Entries are under `<folder>/`; dot-files are included (a project's
 * `.gitignore`), symlinks and special files are left out (walk.ts). A file that shrinks while it is
 * read breaks the archive (the stream ends in error, the client sees a truncated download). The
 * whole area (`path` empty) is every root's content, as the listing shows it (docs/multi-host.md).
 */
export async function openFolderArchive(deps: FilesDeps, relative: string): Promise<FolderArchive> {
  const segments = segmentsOf(relative);
  const roots =
    segments.length === 0 ? await realRoots(deps) : [await realRoot(deps, segments)].filter((root): root is string => root !== null);
  if (roots.length === 0) throw new NotFoundError('Diretório não encontrado');
  const handles: FileHandle[] = [];
  try {
    for (const root of roots) {
      const opened = await openExact(root, segments, DIRECTORY_FLAGS);
      if (opened.kind === 'missing') throw new NotFoundError('Diretório não encontrado');
      if (opened.kind === 'not-a-directory') throw new InvalidInputError('Caminho não é um diretório');
      handles.push(opened.handle);
    }
  } catch (error) {
    await Promise.all(handles.map((handle) => handle.close()));
    throw error;
  }
  const folder = segments.at(-1) ?? ROOT_ARCHIVE_NAME;
  const pack = tar.pack();
  const gzip = zlib.createGzip();
  // Destroying the response's stream (the client went away) destroys the pack, which ends the walk.
  pipeline(pack as unknown as Readable, gzip, () => undefined);
  void (async () => {
    try {
      const top = await handles[0]!.stat();
      await addEntry(pack, { name: `${folder}/`, type: 'directory', mode: top.mode & 0o7777, mtime: top.mtime });
      // A top-level name in two roots is the first root's, as in the listing.
      const seen = new Set<string>();
      for (const handle of handles) {
        const names = new Set<string>();
        await walkTree(handle, folder, {
          skip: (name, entryPath) => {
            if (entryPath !== `${folder}/${name}`) return false; // below the top level
            if (seen.has(name)) return true;
            names.add(name);
            return false;
          },
          directory: (name, stats) =>
            addEntry(pack, { name: `${name}/`, type: 'directory', mode: stats.mode & 0o7777, mtime: stats.mtime }),
          file: (name, file, stats) =>
            addEntry(pack, { name, type: 'file', size: stats.size, mode: stats.mode & 0o7777, mtime: stats.mtime }, file),
        });
        for (const name of names) seen.add(name);
      }
      pack.finalize();
    } catch (error) {
      pack.destroy(error as Error);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  })();
  return { filename: `${folder}.tar.gz`, stream: gzip };
}

type EntryHeader = Parameters<tar.Pack['entry']>[0];

/** What tar-stream's entry is (a streamx Writable), as used here. */
interface EntrySink {
  write(chunk: Buffer): boolean;
  end(): void;
  once(event: 'drain' | 'close', listener: () => void): void;
  destroy(error?: Error): void;
  readonly destroyed: boolean;
}

/** One entry of the archive, with the file's first `header.size` bytes when `file` is given; resolves once written. */
function addEntry(pack: tar.Pack, header: EntryHeader, file?: FileHandle): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const sink = pack.entry(header, (error) => (error ? reject(error) : resolve())) as unknown as EntrySink;
    if (header.type !== 'file') return;
    const size = header.size ?? 0;
    if (file === undefined || size === 0) {
      sink.end();
      return;
    }
    const reader = file.createReadStream({ start: 0, end: size - 1, autoClose: false });
    void (async () => {
      for await (const chunk of reader) {
        if (sink.destroyed) break; // The archive was abandoned (the client went away).
        if (!sink.write(chunk as Buffer)) {
          await new Promise<void>((drained) => {
            sink.once('drain', drained);
            sink.once('close', drained);
          });
        }
      }
      if (sink.destroyed) reader.destroy();
      else sink.end();
    })().catch((error: Error) => {
      sink.destroy(error);
      reject(error);
    });
  });
}
