import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/consultant routes as the OpenAPI document describes them. */
export const consultantOperations: OperationSpec[] = [];
