import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/agents-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const agentsOperations: OperationSpec[] = [];
