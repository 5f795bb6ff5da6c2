import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/health routes as the OpenAPI document describes them. */
export const rankingHealthOperations: OperationSpec[] = [];
