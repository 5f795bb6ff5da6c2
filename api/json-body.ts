import { jsonWithRawList } from '../lib/raw-json';

/** Answers a JSON object whose `listKey` holds items that are already JSON bytes (lib/raw-json.ts). */
export function sendJsonWithRawList(ctx: { type: string; body: unknown }, fields: object, listKey: string, items: Buffer[]): void {
  ctx.type = 'application/json';
  ctx.body = jsonWithRawList(fields, listKey, items);
}
