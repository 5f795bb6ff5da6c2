import fs from 'node:fs/promises';
import path from 'node:path';
import { REPOSITORY_NAME } from '../../lib/config';
import { git, GitError } from '../../lib/git';

/**
 * Publishing also pushes the snapshot to a repository when GIT_PUBLISH_DIR is set (docs/files.md,
 * "Publish"): one bare repository `<project>.git` there per project, as the legacy server created a
 * repository per project on its git host, its branch `main` replaced by each publish (forced, as
 * the legacy server's push was). The snapshot is the service's own copy (no dot-file, no link), so
 * the service's git may read it; git is hardened as everywhere (lib/git.ts).
 */

export interface PublishedRepository {
  /** Where the snapshot was pushed (the bare repository's path), or null when it was not. */
  repoUrl: string | null;
  /** Why it was not pushed, for the answer's message; null when pushed or not configured. */
  problem: string | null;
}

export async function pushSnapshot(
  publishDir: string | null,
  projectName: string,
  snapshot: string,
  scratchDir: string,
): Promise<PublishedRepository> {
  if (publishDir === null) return { repoUrl: null, problem: null };
  if (!REPOSITORY_NAME.test(projectName) || projectName.endsWith('.git')) {
    return { repoUrl: null, problem: `o nome "${projectName}" não serve de nome de repositório (letras, dígitos, . _ -)` };
  }
  const bare = path.join(publishDir, `${projectName}.git`);
  const gitDir = await fs.mkdtemp(path.join(scratchDir, '.publish-git-'));
  try {
    await fs.mkdir(publishDir, { recursive: true, mode: 0o755 });
    const exists = await fs.stat(path.join(bare, 'HEAD')).then(
      () => true,
      () => false,
    );
    if (!exists) await git(['init', '--quiet', '--bare', '--initial-branch=main', bare]);
    const tree = ['--git-dir', gitDir, '--work-tree', snapshot];
    await git(['--git-dir', gitDir, 'init', '--quiet', '--initial-branch=main']);
    await git([...tree, 'add', '--all', '--', '.']);
    await git([
      ...tree,
      'commit',
      '--quiet',
      '--allow-empty',
      '--no-verify',
      '-m',
      `Publicação de ${projectName} (${new Date().toISOString()})`,
    ]);
    await git(['--git-dir', gitDir, 'push', '--quiet', '--force', '--', bare, 'HEAD:refs/heads/main']);
    return { repoUrl: bare, problem: null };
  } catch (error) {
    if (error instanceof GitError) return { repoUrl: null, problem: `o push para o repositório falhou: ${error.message}` };
    throw error;
  } finally {
    await fs.rm(gitDir, { recursive: true, force: true });
  }
}
