import { defineSignal } from '@temporalio/workflow';

/** The approval signals of a pipeline run: POST /pipelines/:id/approve|reject send them, and so can `temporal workflow signal` (README). */
export const approveSignal = defineSignal('approve');
export const rejectSignal = defineSignal('reject');
