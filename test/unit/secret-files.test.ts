import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../lib/config';
import { readSecretFile, resolveSecretFiles, SECRET_SETTINGS } from '../../lib/secret-files';

/** Secret files (docs/connections.md): one mode rule, a trailing newline dropped, both forms refused. */
describe('secrets from <NAME>_FILE', () => {
  let dir: string;
  const me = { uid: process.geteuid!(), groups: [process.getegid!()] };
  const write = (name: string, content: string, mode: number) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    fs.chmodSync(file, mode);
    return file;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-files-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the value, dropping one trailing newline only', () => {
    expect(readSecretFile(write('a', 's3cret\n', 0o400), me)).toBe('s3cret');
    expect(readSecretFile(write('b', 's3cret\r\n', 0o600), me)).toBe('s3cret');
    expect(readSecretFile(write('c', ' two words \n\n', 0o400), me)).toBe(' two words \n');
  });

  it('follows a symlink into ..data/, as a Kubernetes Secret volume lays it out', () => {
    fs.mkdirSync(path.join(dir, '..2026_11_28'));
    const real = path.join(dir, '..2026_11_28', 'token');
    fs.writeFileSync(real, 'from-a-volume\n', { mode: 0o440 });
    fs.symlinkSync('..2026_11_28', path.join(dir, '..data'));
    fs.symlinkSync('..data/token', path.join(dir, 'token'));
    expect(readSecretFile(path.join(dir, 'token'), me)).toBe('from-a-volume');
  });

  it('refuses a file open to others, to a group the process is not in, or owned by another user', () => {
    const open = write('open', 'x', 0o604);
    expect(() => readSecretFile(open, me)).toThrow(`${open} is open to other users (mode 604): chmod 400 or 440 it`);
    const group = write('group', 'x', 0o440);
    const stranger = { uid: me.uid, groups: [me.groups[0]! + 4242] };
    expect(() => readSecretFile(group, stranger)).toThrow(
      `${group} is open to group ${me.groups[0]}, which this process is not in (mode 440): chmod 400 it`,
    );
    expect(readSecretFile(group, me)).toBe('x');
    const owned = write('owned', 'x', 0o400);
    fs.chownSync(owned, 4243, me.groups[0]!);
    expect(() => readSecretFile(owned, { uid: 4244, groups: me.groups })).toThrow(
      `${owned} belongs to user 4243, neither this process's user nor root`,
    );
    // Root-owned is always trusted: a Secret volume's files belong to root.
    fs.chownSync(owned, 0, me.groups[0]!);
    expect(readSecretFile(owned, { uid: 4244, groups: me.groups })).toBe('x');
  });

  it('refuses a relative path, a directory, a missing or an empty file', () => {
    expect(() => readSecretFile('secret.txt', me)).toThrow('an absolute path, got "secret.txt"');
    fs.chmodSync(dir, 0o700);
    expect(() => readSecretFile(dir, me)).toThrow(/EISDIR|is not a regular file/);
    expect(() => readSecretFile(path.join(dir, 'none'), me)).toThrow(`cannot read ${path.join(dir, 'none')} (ENOENT)`);
    const empty = write('empty', '\n', 0o400);
    expect(() => readSecretFile(empty, me)).toThrow(`${empty} is empty`);
  });

  it('replaces every listed <NAME>_FILE by <NAME> and names the variable of each problem', () => {
    const file = write('pw', 'pw-from-file\n', 0o400);
    const env = Object.fromEntries(SECRET_SETTINGS.map((name) => [`${name}_FILE`, file]));
    const resolved = resolveSecretFiles(env, me);
    expect(resolved.problems).toEqual([]);
    expect(resolved.fromFiles).toEqual([...SECRET_SETTINGS]);
    expect(resolved.env).toEqual(Object.fromEntries(SECRET_SETTINGS.map((name) => [name, 'pw-from-file'])));
    expect(resolveSecretFiles({ MYSQL_PASSWORD: 'a', MYSQL_PASSWORD_FILE: file, OTHER_FILE: '/x' }, me)).toEqual({
      env: { MYSQL_PASSWORD: 'a', OTHER_FILE: '/x' },
      problems: ['MYSQL_PASSWORD_FILE: set MYSQL_PASSWORD or MYSQL_PASSWORD_FILE, not both'],
      fromFiles: [],
    });
  });

  it('gives loadConfig the values, and names the _FILE variable when a value read from it is bad', () => {
    const token = write('token', 'a-token-of-24-characters\n', 0o400);
    const key = write('key', `${'ab'.repeat(32)}\n`, 0o400);
    const short = write('short', 'short\n', 0o400);
    const model = write('model', 'sk-model\n', 0o400);
    const config = loadConfig({ AUTH_TOKEN_FILE: token, AGENT_SECRETS_KEY_FILE: key, ANTHROPIC_API_KEY_FILE: model });
    expect(config.orchestration.authToken).toBe('a-token-of-24-characters');
    expect(config.orchestration.secretsKey).toBe('ab'.repeat(32));
    expect(config.orchestration.agentModelSecrets).toEqual({ ANTHROPIC_API_KEY: 'sk-model' });
    expect(() => loadConfig({ AUTH_TOKEN_FILE: short })).toThrow(
      new ConfigError('invalid environment: AUTH_TOKEN_FILE: at least 16 characters'),
    );
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: short })).toThrow(
      new ConfigError('invalid environment: AGENT_SECRETS_KEY_FILE: 64 hexadecimal characters (32 bytes)'),
    );
  });
});
