// Workflows registered on the `ranking` task queue (bundled by the ranking worker).
export { probeWorkflow } from '../probe';
