import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/suggestion routes as the OpenAPI document describes them. */
export const suggestionOperations: OperationSpec[] = [];
