/** A query string without its empty parameters: a form's unset field (`status=`) means "no filter". */
export function withoutEmptyValues(query: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') kept[name] = value;
  }
  return kept;
}
