import fs from 'node:fs/promises';
import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../errors';
import { isoDateTime } from '../view-schema';
import { DIRECTORY_FLAGS, type FilesDeps, openExact, realRoot, realRoots, segmentsOf, viaDescriptor } from './area';

/** Most entries one listing answers (directories first, then by name); `truncated` says more exist. */
export const ENTRIES_LISTED = 1_000;
/** Most names read from one directory to sort them; a larger directory is listed from its first ones. */
export const NAMES_SCANNED = 100_000;

/** Contract 3.15, row 64: what `FilesUI` reads. */
export const fileEntrySchema = z
  .object({
    name: z.string(),
    type: z.enum(['directory', 'file']),
    /** Bytes of a file; null for a directory (the panel shows '—'). */
    size: z.number().int().nullable().meta({ description: 'Bytes de um arquivo; null para uma pasta' }),
    /** ISO time of the last change. */
    modified: isoDateTime.meta({ description: 'A última alteração' }),
    /** Lower-case, without the dot; null for a directory or a name without one. */
    extension: z.string().nullable().meta({ description: 'Em minúsculas, sem o ponto; null para uma pasta ou um nome sem extensão' }),
  })
  .meta({ id: 'FileEntry' });
export type FileEntry = z.infer<typeof fileEntrySchema>;

export const fileListingSchema = z
  .object({
    /** The listed directory relative to the area, '' at the root. */
    path: z.string().meta({ description: "A pasta listada, normalizada, relativa à área; '' na raiz" }),
    /** Its parent ('' for a top-level folder); null at the root. */
    parent: z.string().nullable().meta({ description: "A pasta de cima ('' para uma pasta do primeiro nível); null na raiz" }),
    entries: z
      .array(fileEntrySchema)
      .meta({ description: 'Pastas primeiro, depois por nome; sem arquivos ocultos nem links simbólicos; no máximo 1000' }),
    /** Our addition: true when the directory holds more than the entries listed. */
    truncated: z.boolean().meta({ description: 'Verdadeiro quando a pasta tem mais entradas que as listadas' }),
  })
  .meta({ id: 'FileListing' });
export type FileListing = z.infer<typeof fileListingSchema>;

function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : null;
}

/**
 * GET /api/files[?path=]: a directory of the area. Dot-files are hidden; so are symlinks (what they
 * point at is not the area's to show, and the panel knows only files and directories) and anything
 * else that is neither (FIFOs, sockets). Directories first, then by name. The area's top level is
 * that of every root (docs/multi-host.md); a name in two roots is the first root's.
 */
export async function listFiles(deps: FilesDeps, relative: string): Promise<FileListing> {
  const segments = segmentsOf(relative);
  const listed = segments.join('/');
  const parent = segments.length === 0 ? null : segments.slice(0, -1).join('/');
  if (segments.length === 0) {
    // Nothing was ever written (no root yet): an empty area, not an error (the worker creates the roots).
    const levels = await Promise.all((await realRoots(deps)).map((root) => listDirectory(root, segments)));
    // In root order, so a name in two roots is the first root's.
    const seen = new Set<string>();
    const firsts = levels
      .flatMap((level) => level.entries)
      .filter((entry) => {
        if (seen.has(entry.name)) return false;
        seen.add(entry.name);
        return true;
      });
    const entries = sorted(firsts);
    const truncated = levels.some((level) => level.truncated) || entries.length > ENTRIES_LISTED;
    return { path: '', parent: null, entries: entries.slice(0, ENTRIES_LISTED), truncated };
  }
  const root = await realRoot(deps, segments);
  if (root === null) throw new NotFoundError('Diretório não encontrado');
  const level = await listDirectory(root, segments);
  return { path: listed, parent, ...level };
}

const sorted = <T extends { name: string; type: FileEntry['type'] }>(entries: T[]): T[] =>
  entries.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'directory' ? -1 : 1));

/** One directory of one root: its first ENTRIES_LISTED entries in the listing's order. */
async function listDirectory(root: string, segments: readonly string[]): Promise<{ entries: FileEntry[]; truncated: boolean }> {
  const opened = await openExact(root, segments, DIRECTORY_FLAGS);
  if (opened.kind === 'missing') throw new NotFoundError('Diretório não encontrado');
  if (opened.kind === 'not-a-directory') throw new InvalidInputError('Caminho não é um diretório');
  const { handle } = opened;
  try {
    const where = viaDescriptor(handle);
    const names: Array<{ name: string; type: FileEntry['type'] }> = [];
    let scanned = 0;
    let truncated = false;
    for await (const dirent of await fs.opendir(where)) {
      if (++scanned > NAMES_SCANNED) {
        truncated = true;
        break;
      }
      if (dirent.name.startsWith('.')) continue;
      if (dirent.isDirectory() || dirent.isFile()) names.push({ name: dirent.name, type: dirent.isDirectory() ? 'directory' : 'file' });
    }
    sorted(names);
    if (names.length > ENTRIES_LISTED) truncated = true;
    const entries: FileEntry[] = [];
    for (const { name } of names.slice(0, ENTRIES_LISTED)) {
      let stats;
      try {
        stats = await fs.lstat(`${where}/${name}`);
      } catch {
        continue; // Removed since it was read.
      }
      if (stats.isDirectory()) entries.push({ name, type: 'directory', size: null, modified: stats.mtime.toISOString(), extension: null });
      else if (stats.isFile())
        entries.push({ name, type: 'file', size: stats.size, modified: stats.mtime.toISOString(), extension: extensionOf(name) });
    }
    return { entries, truncated };
  } finally {
    await handle.close();
  }
}
