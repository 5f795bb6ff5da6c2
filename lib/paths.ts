import fs from 'node:fs';
import path from 'node:path';

/** The repository root, found from this file whether it runs from source (lib/) or compiled (dist/lib/). */
function findRepoRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot(__dirname);
export const migrationsFolder = path.join(repoRoot, 'db', 'migrations');
