import type { OperationSpec } from '../openapi/operation';

/** The operations of api/ranking/pdf routes as the OpenAPI document describes them. */
export const pdfOperations: OperationSpec[] = [];
