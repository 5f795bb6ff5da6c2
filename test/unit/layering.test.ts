import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Who may import whom (docs/application-layer.md), enforced by dependency-cruiser with the rules of
 * .dependency-cruiser.cjs: no circle (type-only imports count), lib/ only lib/, domain/ only domain/,
 * no import from a layer above, workflows see activities as types and take only the contracts from
 * temporal/, route files reach storage and Temporal through services/ only.
 */

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const SOURCE_ROOTS = ['main.ts', 'workers', 'api', 'workflows', 'activities', 'services', 'temporal', 'db', 'domain', 'lib'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

/** Each violation of the rules in `dir` as `rule: from -> to` (a circle: its whole path). */
function violationsIn(dir: string): string[] {
  const roots = SOURCE_ROOTS.filter((root) => existsSync(path.join(dir, root)));
  const result = spawnSync(path.join(ROOT, 'node_modules/.bin/depcruise'), ['--config', CONFIG, '--output-type', 'json', ...roots], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.stdout === '') throw new Error(`dependency-cruiser failed: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(report.summary.totalCruised).toBeGreaterThan(0);
  return report.summary.violations
    .map(
      ({ rule, from, to, cycle }) =>
        `${rule.name}: ${from} -> ${cycle && cycle.length > 0 ? cycle.map((step) => step.name).join(' -> ') : to}`,
    )
    .sort();
}

describe('layering', () => {
  it('the service breaks no layer rule and has no circle of imports', () => {
    expect(violationsIn(ROOT)).toEqual([]);
  }, 120_000);

  it('reports a planted violation of every rule, naming the offending import (test/fixtures/layering)', () => {
    expect(violationsIn(path.join(ROOT, 'test/fixtures/layering'))).toEqual([
      'activities-imports-downward: activities/act.ts -> workflows/wf.ts',
      'api-imports-downward: api/up.ts -> workers/main.ts',
      expect.stringMatching(/^contracts-are-workflow-safe: temporal\/contracts\/run\.ts -> (\.\.\/)+node_modules\/@temporalio\/client\//),
      'contracts-do-no-io: temporal/contracts/run.ts -> fs',
      'db-imports-downward: db/up.ts -> services/use-case.ts',
      'domain-is-pure: domain/c.ts -> lib/util.ts',
      'lib-is-generic: lib/util.ts -> db/store.ts',
      expect.stringMatching(/^no-circular: domain\/[ab]\.ts -> domain\/[ab]\.ts -> domain\/[ab]\.ts$/),
      'routes-call-use-cases: api/routes.ts -> db/store.ts',
      'services-imports-downward: services/use-case.ts -> activities/act.ts',
      'temporal-imports-downward: temporal/up.ts -> workflows/wf.ts',
      expect.stringMatching(/^use-cases-know-no-http: services\/http\.ts -> (\.\.\/)+node_modules\/koa\//),
      'workflows-imports-downward: workflows/up.ts -> api/routes.ts',
      'workflows-see-activities-as-types: workflows/code.ts -> activities/act.ts',
      'workflows-take-only-contracts-from-temporal: workflows/wf.ts -> temporal/client.ts',
    ]);
    // Every rule of the configuration is planted once: a rule added without a plant fails here.
    const rules = (require(CONFIG) as { forbidden: Array<{ name: string }> }).forbidden.map((rule) => rule.name);
    const reported = new Set(violationsIn(path.join(ROOT, 'test/fixtures/layering')).map((violation) => violation.split(':')[0]));
    expect([...new Set(rules)].sort()).toEqual([...reported].sort());
  }, 120_000);
});
