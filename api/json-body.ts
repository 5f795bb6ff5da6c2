/**
 * Answers a JSON object whose `listKey` holds items that are already JSON texts: they are joined
 * into the body as they are, so large stored details are never parsed and serialised again.
 */
export function sendJsonWithRawList(ctx: { type: string; body: unknown }, fields: Record<string, unknown>, listKey: string, items: string[]): void {
  const head = JSON.stringify(fields).slice(0, -1);
  const separator = head.length > 1 ? ',' : '';
  ctx.type = 'application/json';
  ctx.body = `${head}${separator}${JSON.stringify(listKey)}:[${items.join(',')}]}`;
}
