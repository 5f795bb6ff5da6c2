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

const upward = Object.entries(LAYERS_ABOVE).map(([layer, above]) => ({
  name: `${layer}-imports-downward`,
  comment: `${layer}/ imports nothing from a layer above it (${above.join('/, ')}/)`,
  severity: 'error',
  from: { path: `^${layer}/` },
  to: { path: `^(${above.join('|')})/|^main\\.ts$` },
}));

/** A bottom layer: its modules import only each other (and packages). */
const keepsToItself = (layer, name, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^${layer}/` },
  to: { pathNot: `^${layer}/`, dependencyTypes: ['local'] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No circle of imports, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    keepsToItself('domain', 'domain-is-pure', 'domain/ imports nothing outside domain/ (no I/O, no framework; packages for types)'),
    keepsToItself('lib', 'lib-is-generic', 'lib/ imports only lib/ (and packages)'),
    ...upward,
    {
      name: 'routes-call-use-cases',
      comment: 'route files reach storage, Temporal and side effects only through services/ (api/resources.ts, the composition root, builds the connections)',
      severity: 'error',
      from: { path: '^api/', pathNot: '^api/resources\\.ts$' },
      to: { path: '^(db|temporal|activities|workflows)/|(^|/)node_modules/(@elastic/elasticsearch|@temporalio/|mysql2|drizzle-orm)' },
    },
    {
      name: 'use-cases-know-no-http',
      comment: 'services/ use no HTTP framework: routes, schedules, webhooks and pipelines call them alike',
      severity: 'error',
      from: { path: '^services/' },
      to: { path: '(^|/)node_modules/(koa|@koa/|koa-)' },
    },
    {
      name: 'workflows-see-activities-as-types',
      comment: 'a workflow names its activities by type only (proxyActivities); their code runs on the worker, never in the bundle',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-take-only-contracts-from-temporal',
      comment: 'a workflow imports from temporal/ only the workflow-safe contracts and queue names, never the client part',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^temporal/', pathNot: '^temporal/(contracts/|task-queues\\.ts$)' },
    },
    {
      name: 'contracts-are-workflow-safe',
      comment: 'temporal/contracts/ imports only contracts, domain/ and the workflow SDK: what a workflow bundle may hold',
      severity: 'error',
      from: { path: '^temporal/contracts/' },
      to: { path: '^(api|workers|workflows|activities|services|temporal/(?!contracts/)|db|lib)/|(^|/)node_modules/@temporalio/(client|worker|activity)/' },
    },
    {
      name: 'contracts-do-no-io',
      comment: 'temporal/contracts/ uses no Node.js module (a workflow bundle runs without them)',
      severity: 'error',
      from: { path: '^temporal/contracts/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|scripts)/' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
