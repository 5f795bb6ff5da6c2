import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  DEPLOYMENT_DOC,
  REGENERATE_COMMAND,
  ROLE_TABLE,
  renderMatrix,
  roleTableProblems,
  schemaVariables,
  withMatrix,
} from '../../scripts/docs/deployment-matrix';
import { createCommand } from '../../temporal/search-attributes';

/**
 * docs/deployment.md, the operator's guide (issue 41): its variable matrix is the one
 * scripts/docs/deployment-matrix.ts generates from lib/config.ts, every variable has its roles, and what
 * the doc names exists: npm scripts, repository paths, chart values (deploy/helm/consultores-agentes/values.yaml).
 */

const ROOT = path.resolve(__dirname, '../..');
const CHART_VALUES = path.join(ROOT, 'deploy/helm/consultores-agentes/values.yaml');
const doc = fs.readFileSync(DEPLOYMENT_DOC, 'utf8');

/** The doc without its fenced blocks: inline code there is prose's, not a shell's or a unit file's. */
const prose = doc.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
const inlineCode = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

/** Every key path of a chart's values (`api.podDisruptionBudget.minAvailable`): mappings within mappings, not into lists. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${prefix}${key}`, ...keyPaths(inner, `${prefix}${key}.`)]);
}

/** Files and directories of the repository: tracked, or new and not ignored (git's view, not dist/ or .stack/). */
function repositoryEntries(): { files: Set<string>; topLevel: Set<string> } {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  return { files: new Set(listed), topLevel: new Set(listed.map((file) => file.split('/')[0]!)) };
}

describe('docs/deployment.md', () => {
  test('has the variable matrix that scripts/docs/deployment-matrix.ts generates from lib/config.ts', () => {
    const expected = withMatrix(doc, renderMatrix());
    if (expected !== doc) {
      throw new Error(`docs/deployment.md: the variable matrix is out of date; run ${REGENERATE_COMMAND}`);
    }
  });

  test('gives every variable of the configuration schema its roles, and no role to a variable that is gone', () => {
    const variables = schemaVariables();
    // The schema was found and read: the variables every deployment sets are there, with their defaults.
    expect(variables.length).toBeGreaterThan(80);
    expect(variables).toEqual(
      expect.arrayContaining([
        { name: 'NODE_ENV', default: 'development' },
        { name: 'HTTP_PORT', default: 3000 },
        { name: 'AGENT_UPLOAD_MAX_FILE_BYTES', default: 10 * 1024 * 1024 },
        { name: 'TEMPORAL_ADDRESS' },
      ]),
    );
    const { missing, stale } = roleTableProblems(variables);
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
    for (const [name, entry] of Object.entries(ROLE_TABLE)) {
      expect({ name, roles: entry.roles.length > 0 }).toEqual({ name, roles: true });
    }
  });

  test('refuses to generate a matrix when a schema variable has no entry in the role table', () => {
    expect(() => renderMatrix([...schemaVariables(), { name: 'SOME_NEW_SETTING' }])).toThrow(/no entry in ROLE_TABLE for SOME_NEW_SETTING/);
  });

  test('runs only npm scripts that package.json has', () => {
    const scripts = Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts);
    const named = [...new Set([...doc.matchAll(/npm run ([A-Za-z0-9:_-]+)/g)].map((match) => match[1]!))];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  test('names only repository paths that exist, in backticks and in links', () => {
    const { files, topLevel } = repositoryEntries();
    const exists = (entry: string) => {
      const clean = entry.replace(/\/$/, '');
      return files.has(clean) || [...files].some((file) => file.startsWith(`${clean}/`));
    };
    // A path: segments with a slash, its first one a top-level entry of the repository (not /data, not dist/...).
    const named = inlineCode.filter((code) => /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/.test(code) && code.includes('/'));
    const paths = named.filter((code) => topLevel.has(code.split('/')[0]!));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((entry) => !exists(entry))).toEqual([]);

    const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
      .map((target) => path.relative(ROOT, path.resolve(path.dirname(DEPLOYMENT_DOC), target.replace(/#.*$/, ''))));
    expect(links.filter((target) => !exists(target))).toEqual([]);
  });

  test('names only chart values that deploy/helm/consultores-agentes/values.yaml has', () => {
    const values = new Set(keyPaths(parse(fs.readFileSync(CHART_VALUES, 'utf8'))));
    const topLevel = new Set([...values].filter((key) => !key.includes('.')));
    // A chart value is written `first.second...`, its first segment a top-level key of values.yaml.
    const named = [...new Set(inlineCode.filter((code) => /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_-]+)+$/.test(code)))].filter((code) =>
      topLevel.has(code.split('.')[0]!),
    );
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((value) => !values.has(value))).toEqual([]);
  });

  test("prints the search attributes' commands as temporal/search-attributes.ts makes them", () => {
    expect(doc).toContain(createCommand('consultores'));
    expect(doc).toContain(createCommand('consultores.a1b2c', true));
  });
});
