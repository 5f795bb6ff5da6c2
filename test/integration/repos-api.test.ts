import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { bareRepository as makeBare } from '../support/git-repos';
import { jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * GET /api/repos and /api/repos/:name/branches (contract 3.14; docs/repositories.md) over real bare
 * repositories made with git in a scratch directory, and named remotes of GIT_REMOTES.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'repos-api-'));
const reposDir = path.join(scratch, 'repos');
let server: TestServer;

const bareRepository = (dirName: string, branches: string[], description?: string) =>
  makeBare(scratch, reposDir, dirName, branches, description);

let apiBare: string;

beforeAll(async () => {
  fs.mkdirSync(reposDir);
  apiBare = bareRepository('api.git', ['main', 'feature/login', 'release-1.0'], 'The public API');
  bareRepository('site', ['gh-pages']);
  bareRepository('empty.git', []);
  fs.mkdirSync(path.join(reposDir, 'not-a-repo'));
  fs.symlinkSync(apiBare, path.join(reposDir, 'linked.git'));
  const remoteBare = bareRepository('remote-source.git', ['trunk']);
  server = await startTestServer((config) => ({
    ...config,
    orchestration: {
      ...config.orchestration,
      repositories: { ...config.orchestration.repositories, dir: reposDir, remotes: [{ name: 'docs', url: `file://${remoteBare}` }] },
    },
  }));
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const call = (route: string) => jsonCall(server.url, 'GET', route);

describe('GET /api/repos', () => {
  it('lists the bare repositories of GIT_REPOS_DIR and the named remotes, by name, from git', async () => {
    const answer = await call('/api/repos');
    expect(answer.status).toBe(200);
    expect(answer.body.map((repo: { name: string }) => repo.name)).toEqual(['api', 'docs', 'empty', 'remote-source', 'site']);
    const byName = Object.fromEntries(answer.body.map((repo: { name: string }) => [repo.name, repo]));
    expect(byName.api).toEqual({
      name: 'api',
      fullName: 'api',
      description: 'The public API',
      defaultBranch: 'main',
      updatedAt: null,
      htmlUrl: null,
      cloneUrl: apiBare,
      empty: false,
    });
    expect(byName.site).toMatchObject({ description: '', defaultBranch: 'gh-pages', empty: false });
    expect(byName.empty).toMatchObject({ defaultBranch: null, empty: true });
    expect(byName.docs).toMatchObject({ defaultBranch: 'trunk', empty: false, cloneUrl: expect.stringMatching(/^file:\/\//) });
  });

  it('answers the branches as a bare array of names; an unknown repository 404', async () => {
    expect(await call('/api/repos/api/branches')).toEqual({ status: 200, body: ['feature/login', 'main', 'release-1.0'] });
    expect(await call('/api/repos/docs/branches')).toEqual({ status: 200, body: ['trunk'] });
    expect(await call('/api/repos/empty/branches')).toEqual({ status: 200, body: [] });
    expect(await call('/api/repos/nope/branches')).toEqual({ status: 404, body: { error: 'Repositório não encontrado: "nope"' } });
    expect(await call('/api/repos/not-a-repo/branches')).toMatchObject({ status: 404 });
    expect(await call('/api/repos/linked/branches')).toMatchObject({ status: 404 });
    expect(await call(`/api/repos/${encodeURIComponent('../repos/api')}/branches`)).toMatchObject({ status: 404 });
  });

  it('answers an empty list when no repository is configured', async () => {
    const bare = await startTestServer((config) => ({
      ...config,
      orchestration: { ...config.orchestration, repositories: { ...config.orchestration.repositories, dir: null, remotes: [] } },
    }));
    try {
      const response = await fetch(`${bare.url}/api/repos`);
      expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: [] });
    } finally {
      await bare.close();
    }
  });
});

describe('GIT_REMOTES', () => {
  it('reads name=url pairs and refuses a URL carrying credentials or a bad name', () => {
    const base = { MYSQL_PASSWORD: 'x' };
    expect(
      loadConfig({ ...base, GIT_REMOTES: 'docs=https://git.example/org/docs.git, local=/srv/git/a.git' }).orchestration.repositories
        .remotes,
    ).toEqual([
      { name: 'docs', url: 'https://git.example/org/docs.git' },
      { name: 'local', url: '/srv/git/a.git' },
    ]);
    expect(() => loadConfig({ ...base, GIT_REMOTES: 'docs=https://user:token@git.example/docs.git' })).toThrow(/GIT_REMOTES/);
    expect(() => loadConfig({ ...base, GIT_REMOTES: '../x=https://git.example/x.git' })).toThrow(/GIT_REMOTES/);
    expect(() => loadConfig({ ...base, GIT_REMOTES: 'x=ssh://git.example/x.git' })).toThrow(/GIT_REMOTES/);
    // Credentials never go to another machine over plain http; loopback (a local server) is fine.
    const credentials = { GIT_USERNAME: 'robot', GIT_PASSWORD: 'token' };
    expect(() => loadConfig({ ...base, ...credentials, GIT_REMOTES: 'docs=http://git.example/docs.git' })).toThrow(
      /docs would receive GIT_USERNAME\/GIT_PASSWORD in clear text/,
    );
    expect(
      loadConfig({ ...base, ...credentials, GIT_REMOTES: 'docs=http://127.0.0.1:8080/docs.git' }).orchestration.repositories.credentials,
    ).toEqual({ username: 'robot', password: 'token' });
    expect(loadConfig({ ...base, GIT_REMOTES: 'docs=http://git.example/docs.git' }).orchestration.repositories.remotes).toHaveLength(1);
  });
});
