/**
 * The layers and who may import whom (docs/application-layer.md), checked by test/unit/layering.test.ts
 * with dependency-cruiser. From the top: main.ts and workers/ (composition), api/, workflows/,
 * activities/, services/, temporal/, db/, then domain/ and lib/. An import goes down, never up.
 * Type-only imports count (tsPreCompilationDeps): a type import still ties two modules' designs.
 */
const LAYERS_ABOVE = {
  services: ['api', 'workflows', 'activities', 'workers'],
  temporal: ['api', 'workflows', 'activities', 'services', 'workers'],
  db: ['api', 'workflows', 'activities', 'services', 'temporal', 'workers'],
  activities: ['api', 'workflows', 'workers'],
  workflows: ['api', 'workers'],
  api: ['workers'],
};

/** A forbidden import: from the modules `from` matches to those `to` matches. */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

const upward = Object.entries(LAYERS_ABOVE).map(([layer, above]) =>
  rule(
    `${layer}-imports-downward`,
    `${layer}/ imports nothing from a layer above it (${above.join('/, ')}/)`,
    { path: `^${layer}/` },
    { path: `^(${above.join('|')})/|^main\\.ts$` },
  ),
);

/** A bottom layer: its modules import only each other (and packages). */
const keepsToItself = (layer, name, comment) =>
  rule(name, comment, { path: `^${layer}/` }, { pathNot: `^${layer}/`, dependencyTypes: ['local'] });

module.exports = {
  forbidden: [
    rule('no-circular', 'No circle of imports, type-only imports included', {}, { circular: true }),
    keepsToItself('domain', 'domain-is-pure', 'domain/ imports nothing outside domain/ (no I/O, no framework; packages for types)'),
    keepsToItself('lib', 'lib-is-generic', 'lib/ imports only lib/ (and packages)'),
    ...upward,
    rule(
      'routes-call-use-cases',
      'route files reach storage, Temporal and side effects only through services/ (api/resources.ts, the composition root, builds the connections)',
      { path: '^api/', pathNot: '^api/resources\\.ts$' },
      { path: '^(db|temporal|activities|workflows)/|(^|/)node_modules/(@elastic/elasticsearch|@temporalio/|mysql2|drizzle-orm)' },
    ),
    rule(
      'use-cases-know-no-http',
      'services/ use no HTTP framework: routes, schedules, webhooks and pipelines call them alike',
      { path: '^services/' },
      { path: '(^|/)node_modules/(koa|@koa/|koa-)' },
    ),
    rule(
      'workflows-see-activities-as-types',
      'a workflow names its activities by type only (proxyActivities); their code runs on the worker, never in the bundle',
      { path: '^workflows/' },
      { path: '^activities/', dependencyTypesNot: ['type-only'] },
    ),
    rule(
      'workflows-take-only-contracts-from-temporal',
      'a workflow imports from temporal/ only the workflow-safe contracts and queue names, never the client part',
      { path: '^workflows/' },
      { path: '^temporal/', pathNot: '^temporal/(contracts/|task-queues\\.ts$)' },
    ),
    rule(
      'contracts-are-workflow-safe',
      'temporal/contracts/ imports only contracts, domain/ and the workflow SDK: what a workflow bundle may hold',
      { path: '^temporal/contracts/' },
      {
        path: '^(api|workers|workflows|activities|services|temporal/(?!contracts/)|db|lib)/|(^|/)node_modules/@temporalio/(client|worker|activity)/',
      },
    ),
    rule(
      'contracts-do-no-io',
      'temporal/contracts/ uses no Node.js module (a workflow bundle runs without them)',
      { path: '^temporal/contracts/' },
      { dependencyTypes: ['core'] },
    ),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|scripts)/' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
