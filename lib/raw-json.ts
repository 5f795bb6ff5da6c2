/**
 * A JSON object whose `listKey` holds items that are already JSON bytes, as one buffer: the items are
 * joined in as they are, so large stored details are never parsed, serialised or encoded again.
 * `fields` come first, in their order, then the list.
 */
export function jsonWithRawList(fields: object, listKey: string, items: Buffer[]): Buffer {
  const parts: Buffer[] = [rawListHead(fields, listKey)];
  items.forEach((item, i) => parts.push(...(i === 0 ? [item] : [RAW_LIST_SEPARATOR, item])));
  parts.push(TAIL);
  return Buffer.concat(parts);
}

/** The bytes before the list's first item: `{"field":value,...,"listKey":[`. */
export function rawListHead(fields: object, listKey: string): Buffer {
  const head = JSON.stringify(fields).slice(0, -1);
  const separator = head.length > 1 ? ',' : '';
  return Buffer.from(`${head}${separator}${JSON.stringify(listKey)}:[`);
}

/** What stands between two items of the list. */
export const RAW_LIST_SEPARATOR = Buffer.from(',');
const TAIL = Buffer.from(']}');
