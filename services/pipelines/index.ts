// Pipelines (docs/pipelines.md): CRUD here; runs, approvals, cancel and resume in ./runs.ts.
export * from './pipelines';
// The stored shape a create or update takes, for the request schemas of api/ (which check they name the same fields).
export type { PipelineInput, PipelineStepInput } from '../../db/pipelines-store';
export * from './view';
export * from './runs';
