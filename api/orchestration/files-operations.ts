import type { OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/files-routes.ts (or system.ts) as the OpenAPI document describes them. */
export const filesOperations: OperationSpec[] = [];
