import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/ranking routes as the OpenAPI document describes them. */
export const rankingReadOperations: OperationSpec[] = [];
