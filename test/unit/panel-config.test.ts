import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../lib/config';
import { repoRoot } from '../../lib/paths';

describe('PANEL_DIR', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'panel-config-')));
    fs.mkdirSync(path.join(scratch, 'public'));
    fs.writeFileSync(path.join(scratch, 'file.html'), '<p>');
    fs.symlinkSync(path.join(scratch, 'public'), path.join(scratch, 'link'));
  });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('unset means no panel', () => {
    expect(loadConfig({}).panel).toEqual({ dir: null });
  });

  it('is kept as the real path of the directory, a symlink resolved', () => {
    expect(loadConfig({ PANEL_DIR: path.join(scratch, 'public') }).panel.dir).toBe(path.join(scratch, 'public'));
    expect(loadConfig({ PANEL_DIR: path.join(scratch, 'link') }).panel.dir).toBe(path.join(scratch, 'public'));
  });

  it('resolves a relative path against the repository, not the working directory', () => {
    expect(loadConfig({ PANEL_DIR: 'docs' }).panel.dir).toBe(path.join(fs.realpathSync(repoRoot), 'docs'));
  });

  it.each([
    ['a missing directory', () => path.join(scratch, 'nowhere'), /cannot open .*nowhere \(ENOENT\)/],
    ['a file', () => path.join(scratch, 'file.html'), /is not a directory/],
    ['the root of the file system', () => '/', /would serve the whole machine or the service's own repository/],
    ['the repository itself', () => repoRoot, /would serve the whole machine or the service's own repository/],
    ['a directory holding the repository', () => path.dirname(repoRoot), /would serve the whole machine or the service's own repository/],
  ])('refuses %s with a ConfigError naming the variable', (_what, dir, message) => {
    expect(() => loadConfig({ PANEL_DIR: dir() })).toThrow(ConfigError);
    expect(() => loadConfig({ PANEL_DIR: dir() })).toThrow(/^invalid environment: PANEL_DIR: /);
    expect(() => loadConfig({ PANEL_DIR: dir() })).toThrow(message);
  });
});
