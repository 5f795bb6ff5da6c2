import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The pinned Node (docs/runtime.md): one version in scripts/node/ensure-node.sh, package.json's engines
 * and @types/node agree with it, the entry scripts switch to it before anything else, and the switch
 * itself (on a stand-in install, nothing downloaded) puts the pinned bin/ first on PATH or refuses a
 * binary of another version.
 */

const ROOT = path.resolve(__dirname, '../..');
const ENSURE = path.join(ROOT, 'scripts/node/ensure-node.sh');
const PINNED = /^NODE_PINNED_VERSION=(\d+\.\d+\.\d+)$/m.exec(fs.readFileSync(ENSURE, 'utf8'))?.[1] ?? '';
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

/** Sources ensure-node.sh in `sh` (as package.json's scripts do) with an install root of the test's. */
function ensure(root: string, env: Record<string, string> = {}) {
  const run = spawnSync('sh', ['-c', `. ${ENSURE} && printf '%s\\n' "$PATH" && command -v node`], {
    cwd: ROOT,
    encoding: 'utf8',
    // A PATH whose node is not the pinned one (a stand-in answering another version), so the script must switch.
    env: { PATH: `${root}/machine-bin:/usr/bin:/bin`, HOME: root, NODE_INSTALL_ROOT: root, ...env },
  });
  return { status: run.status, stdout: run.stdout.trim().split('\n'), stderr: run.stderr };
}

/** A stand-in `node` in `dir` that only answers `--version` with `version`. */
function fakeNode(dir: string, version: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
}

describe('the pinned Node', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'node-pin-'));
    fakeNode(path.join(root, 'machine-bin'), 'v20.20.2');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('package.json says the version ensure-node.sh installs, and @types/node has its major', () => {
    expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.engines.node).toBe(PINNED);
    expect(pkg.devDependencies['@types/node']?.split('.')[0]).toBe(PINNED.split('.')[0]);
  });

  test.each(['scripts/start.sh', 'scripts/test.sh', 'scripts/install-deps.sh', '.ci/run'])(
    '%s switches to it before any other command',
    (file) => {
      const commands = fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('set ') && !line.startsWith('cd '));
      expect(commands[0]).toBe('source scripts/node/ensure-node.sh');
    },
  );

  test('when this process was started by the project scripts, it is the pinned Node', () => {
    // Only `npm test` and the other scripts set CONSULTORES_NODE; a bare `npx jest` on another Node is not checked.
    if (!process.env.CONSULTORES_NODE) return;
    expect(process.version).toBe(`v${PINNED}`);
    expect(fs.realpathSync(process.execPath)).toBe(fs.realpathSync(process.env.CONSULTORES_NODE));
  });

  test('an installed pinned Node goes first on PATH, with one line saying so', () => {
    const dir = path.join(root, `v${PINNED}`);
    fakeNode(path.join(dir, 'bin'), `v${PINNED}`);
    const run = ensure(root);
    expect(run.status).toBe(0);
    expect(run.stdout[0]?.split(':')[0]).toBe(path.join(dir, 'bin'));
    expect(run.stdout[1]).toBe(path.join(dir, 'bin', 'node'));
    expect(run.stderr).toBe(`node: v${PINNED} (pinned, ${path.join(dir, 'bin', 'node')})\n`);
  });

  test('the machine node is used as it is when it is exactly the pinned version', () => {
    fakeNode(path.join(root, 'machine-bin'), `v${PINNED}`);
    const run = ensure(root);
    expect(run.status).toBe(0);
    expect(run.stdout[1]).toBe(path.join(root, 'machine-bin', 'node'));
    expect(run.stderr).toContain("(the machine's,");
    expect(fs.existsSync(path.join(root, `v${PINNED}`))).toBe(false);
  });

  test('an installed binary of another version is refused, not used', () => {
    fakeNode(path.join(root, `v${PINNED}`, 'bin'), 'v24.0.0');
    const run = ensure(root);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`says v24.0.0, not v${PINNED}`);
  });

  test('a second call in the same environment does nothing and prints nothing', () => {
    const dir = path.join(root, `v${PINNED}`);
    fakeNode(path.join(dir, 'bin'), `v${PINNED}`);
    const run = ensure(root, { PATH: `${dir}/bin:/usr/bin:/bin`, CONSULTORES_NODE: path.join(dir, 'bin', 'node') });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
