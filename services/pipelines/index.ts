// Pipelines (docs/pipelines.md): CRUD here; runs, approvals, cancel and resume in ./runs.ts.
export * from './pipelines';
export * from './view';
export * from './runs';
export { runStepRecords } from './run-steps';
