import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/job routes as the OpenAPI document describes them. */
export const rankingJobOperations: OperationSpec[] = [];
