import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/reports-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const reportsOperations: OperationSpec[] = [];
