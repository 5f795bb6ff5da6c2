import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/health-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const healthOperations: OperationSpec[] = [];
