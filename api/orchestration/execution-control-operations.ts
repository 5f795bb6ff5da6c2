import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/execution-control-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const executionControlOperations: OperationSpec[] = [];
