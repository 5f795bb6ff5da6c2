import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/webhooks-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const webhooksOperations: OperationSpec[] = [];
