import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * What each layer may import (docs/application-layer.md). Imports are read with TypeScript's own
 * pre-processor, so `import type`, `export ... from` and `import()` count alike.
 */

const ROOT = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

/** The repository-relative target of each relative import of `file` (packages are left out). */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
}

const topLevel = (target: string) => target.split('/')[0] ?? target;

/** Route files (everything under api/) reach storage, Temporal and side effects only through services/. */
const FORBIDDEN_FOR_API = new Set(['db', 'temporal', 'activities', 'workflows']);

/**
 * Route files that still hold use cases of their own, with exactly the imports they keep. Empty since
 * issue 14 moved the last ones to services/; kept so that a deliberate, reviewed exception has one place.
 */
const LEGACY_API_IMPORTS: Record<string, string[]> = {};

function forbiddenImportsOf(file: string, forbidden: (target: string) => boolean): string[] {
  return [...new Set(relativeImports(file).filter(forbidden))].sort();
}

describe('layering', () => {
  it('reads the imports of a file, type-only and re-exports included', () => {
    // The execution routes were moved to services/: they name no db/, temporal/ or workflows/ module.
    const routes = relativeImports('api/orchestration/execution-control-routes.ts');
    expect(routes).toContain('services/executions');
    expect(routes.filter((target) => FORBIDDEN_FOR_API.has(topLevel(target)))).toEqual([]);
    // A type-only import and a re-export are both seen (db/ranking-queries re-exports domain types).
    expect(relativeImports('db/ranking-queries.ts')).toEqual(expect.arrayContaining(['domain/ranking-entry', 'domain/ranking-row']));
    expect(relativeImports('services/executions/index.ts')).toContain('db/executions-store');
  });

  it('route files under api/ import no db/, temporal/, activities/ or workflows/ module beyond the shrinking legacy list', () => {
    const actual: Record<string, string[]> = {};
    for (const file of sourceFiles('api')) {
      const found = forbiddenImportsOf(file, (target) => FORBIDDEN_FOR_API.has(topLevel(target)));
      if (found.length > 0) actual[file] = found;
    }
    expect(actual).toEqual(LEGACY_API_IMPORTS);
  });

  it('route files under api/ use no Elasticsearch, Temporal or MySQL client (those reads are in services/)', () => {
    const STORE_CLIENTS = /^(@elastic\/elasticsearch|@temporalio\/|mysql2|drizzle-orm)/;
    const offending: string[] = [];
    for (const file of sourceFiles('api')) {
      const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
      for (const { fileName } of info.importedFiles) if (STORE_CLIENTS.test(fileName)) offending.push(`${file} -> ${fileName}`);
    }
    expect(offending).toEqual([]);
  });

  it('domain/ imports nothing outside domain/ (no db/, no I/O layer)', () => {
    const leaving: string[] = [];
    for (const file of sourceFiles('domain')) {
      for (const target of relativeImports(file)) if (topLevel(target) !== 'domain') leaving.push(`${file} -> ${target}`);
    }
    expect(leaving).toEqual([]);
  });

  it('services/ import nothing from api/ and no HTTP framework', () => {
    const files = sourceFiles('services');
    expect(files).toEqual(expect.arrayContaining(['services/errors.ts', 'services/executions/launch.ts']));
    const offending: string[] = [];
    for (const file of files) {
      const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
      for (const { fileName } of info.importedFiles) {
        const isHttp = /^(koa|@koa\/|koa-)/.test(fileName);
        const isApi = fileName.startsWith('.') && topLevel(path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName))) === 'api';
        if (isHttp || isApi) offending.push(`${file} -> ${fileName}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
