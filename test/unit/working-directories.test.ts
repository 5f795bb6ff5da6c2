import { loadConfig } from '../../lib/config';
import {
  isWithin,
  lexicalRoot,
  normaliseWorkingDirectory,
  WORKING_DIRECTORY_MAX,
  WorkingDirectoryError,
} from '../../lib/working-directories';

describe('normaliseWorkingDirectory (no file system)', () => {
  it.each([
    ['/home/projetos/', '/home/projetos'],
    ['/home/projetos', '/home/projetos'],
    ['//home///projetos//app//', '/home/projetos/app'],
    ['/home/projetos/./app/.', '/home/projetos/app'],
    ['/', '/'],
    ['/home/projetos/a b/ç', '/home/projetos/a b/ç'],
    // Names that only start with dots are names, not "..".
    ['/home/projetos/...', '/home/projetos/...'],
    ['/home/projetos/..app', '/home/projetos/..app'],
  ])('%j -> %j', (requested, expected) => {
    expect(normaliseWorkingDirectory(requested)).toBe(expected);
  });

  it.each([
    ['', 'the working directory must be an absolute path'],
    ['projects/x', 'the working directory must be an absolute path (got "projects/x")'],
    ['./x', 'the working directory must be an absolute path (got "./x")'],
    ['~/x', 'the working directory must be an absolute path (got "~/x")'],
    ['/home/projetos/../../etc', 'the working directory must not contain ".." (got "/home/projetos/../../etc")'],
    ['/home/projetos/app/..', 'the working directory must not contain ".." (got "/home/projetos/app/..")'],
    ['/home/projetos/a\u0000b', 'the working directory must not contain control characters'],
    ['/home/projetos/a\nb', 'the working directory must not contain control characters'],
    ['/home/projetos/a\u007fb', 'the working directory must not contain control characters'],
  ])('refuses %j', (requested, message) => {
    expect(() => normaliseWorkingDirectory(requested)).toThrow(new WorkingDirectoryError(message));
  });

  it.each([
    ['', 'O diretório de trabalho deve ser um caminho absoluto'],
    ['projects/x', 'O diretório de trabalho deve ser um caminho absoluto (recebido "projects/x")'],
    ['/home/projetos/../../etc', 'O diretório de trabalho não pode conter ".." (recebido "/home/projetos/../../etc")'],
    ['/home/projetos/a\nb', 'O diretório de trabalho não pode conter caracteres de controle'],
    [`/${'a'.repeat(WORKING_DIRECTORY_MAX)}`, 'O diretório de trabalho deve ter no máximo 1000 caracteres'],
  ])(
    "says in pt-BR why it refuses path %# (the API's text, docs/errors.md); the message stays for the worker",
    (requested, ptBrMessage) => {
      expect(() => normaliseWorkingDirectory(requested)).toThrow(expect.objectContaining({ ptBrMessage }));
    },
  );

  it('accepts 1000 characters (the column width), refuses 1001', () => {
    const longest = `/${'a'.repeat(WORKING_DIRECTORY_MAX - 1)}`;
    expect(normaliseWorkingDirectory(longest)).toBe(longest);
    expect(() => normaliseWorkingDirectory(`${longest}b`)).toThrow(
      new WorkingDirectoryError('the working directory must have at most 1000 characters'),
    );
  });
});

describe('isWithin / lexicalRoot', () => {
  it.each([
    ['/home/projetos', '/home/projetos', true],
    ['/home/projetos/app', '/home/projetos', true],
    ['/home/projetos-other', '/home/projetos', false],
    ['/home/projeto', '/home/projetos', false],
    ['/home', '/home/projetos', false],
    ['/etc', '/', true],
  ])('%s within %s: %s', (candidate, root, expected) => {
    expect(isWithin(candidate, root)).toBe(expected);
  });

  it('names the first root that holds a path', () => {
    expect(lexicalRoot('/srv/b/x', ['/srv/a', '/srv/b'])).toBe('/srv/b');
    expect(lexicalRoot('/srv/c', ['/srv/a', '/srv/b'])).toBeUndefined();
  });
});

describe('AGENT_WORKDIR_ROOTS', () => {
  it('defaults to the projects area the admin panel prefills', () => {
    expect(loadConfig({}).orchestration.workdirRoots).toEqual(['/home/projetos']);
  });

  it('reads comma-separated absolute paths, normalised, without duplicates', () => {
    expect(loadConfig({ AGENT_WORKDIR_ROOTS: ' /srv/work/ , /home/projetos,/srv//work' }).orchestration.workdirRoots).toEqual([
      '/srv/work',
      '/home/projetos',
    ]);
  });

  it.each([
    ['relative', 'AGENT_WORKDIR_ROOTS: "relative": must be an absolute path (got "relative")'],
    ['/srv/a/../b', 'AGENT_WORKDIR_ROOTS: "/srv/a/../b": must not contain ".." (got "/srv/a/../b")'],
    [' , ', 'AGENT_WORKDIR_ROOTS: at least one absolute path'],
  ])('refuses %j at start', (value, message) => {
    expect(() => loadConfig({ AGENT_WORKDIR_ROOTS: value })).toThrow(message);
  });
});
