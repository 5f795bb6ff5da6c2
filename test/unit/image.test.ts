import fs from 'node:fs';
import path from 'node:path';
import { AGENT_GROUP, AGENT_USER_PREFIX } from '../../lib/agent-isolation';
import { loadConfig } from '../../lib/config';

/**
 * The image's Dockerfile (docs/image.md) builds unchanged with a plain `docker build .`, so its
 * defaults must be the values the rest of the project pins: the Node of scripts/node/ensure-node.sh
 * (npm run image:build passes that script's values; these are what everyone else gets), the pool of
 * agent users of AGENT_USERS's default, with lib/agent-isolation.ts's names. And the build context
 * never holds the local secrets or data.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const dockerfile = read('Dockerfile');
const ensureNode = read('scripts/node/ensure-node.sh');

const argDefault = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];

describe('the image', () => {
  test('builds the Node that scripts/node/ensure-node.sh pins, checked against the same integrities', () => {
    const pinned = /^NODE_PINNED_VERSION=(\S+)$/m.exec(ensureNode)?.[1];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(argDefault('NODE_VERSION')).toBe(pinned);
    for (const arch of ['x64', 'arm64']) {
      const integrity = new RegExp(`^\\s*${arch}\\) echo '(sha512-[^']+)'`, 'm').exec(ensureNode)?.[1];
      expect(integrity).toMatch(/^sha512-/);
      expect(argDefault(`NODE_INTEGRITY_${arch.toUpperCase()}`)).toBe(integrity);
    }
  });

  test("creates AGENT_USERS's default number of pool users, with the names lib/agent-isolation.ts looks up", () => {
    expect(Number(argDefault('AGENT_USERS'))).toBe(loadConfig({}).orchestration.agentUsers);
    expect(dockerfile).toContain(`groupadd --gid 10100 ${AGENT_GROUP};`);
    expect(dockerfile).toContain(`--gid ${AGENT_GROUP} --no-user-group --home-dir "/var/lib/agent-users/${AGENT_USER_PREFIX}$i"`);
  });

  test('keeps the local stack (its secrets key), data, uploads and node_modules out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.stack/', '.data/', '.reports/', '.uploads/', 'node_modules', '.git']));
  });

  test('gives the external reports directory a directory of its own, apart from the data area, owned as the data area is', () => {
    // The specification: reports "inside the service data area and in an external reports directory".
    const env = (name: string) => new RegExp(`^\\s+${name}=(\\S+)`, 'm').exec(dockerfile)?.[1];
    const dataDir = env('AGENT_DATA_DIR');
    const reportsDir = env('AGENT_REPORTS_DIR');
    expect({ dataDir, reportsDir }).toEqual({ dataDir: '/data', reportsDir: '/reports' });
    expect(path.relative(dataDir!, reportsDir!).startsWith('..')).toBe(true);
    // A new Docker volume copies the image's directory, owner and mode included (docs/image.md).
    expect(dockerfile).toContain('install -d -m 0700 -o app -g app /data;');
    expect(dockerfile).toContain('install -d -m 0700 -o app -g app /reports;');
  });
});
