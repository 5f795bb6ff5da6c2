/**
 * Answers a JSON object whose `listKey` holds items that are already JSON bytes: they are joined
 * into the body as they are, so large stored details are never parsed, serialised or encoded again.
 */
export function sendJsonWithRawList(ctx: { type: string; body: unknown }, fields: Record<string, unknown>, listKey: string, items: Buffer[]): void {
  const head = JSON.stringify(fields).slice(0, -1);
  const separator = head.length > 1 ? ',' : '';
  const parts: Buffer[] = [Buffer.from(`${head}${separator}${JSON.stringify(listKey)}:[`)];
  const comma = Buffer.from(',');
  items.forEach((item, i) => parts.push(...(i === 0 ? [item] : [comma, item])));
  parts.push(Buffer.from(']}'));
  ctx.type = 'application/json';
  ctx.body = Buffer.concat(parts);
}
