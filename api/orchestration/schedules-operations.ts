import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/schedules-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const schedulesOperations: OperationSpec[] = [];
