/**
 * What a version of an agent says it was (the versions modal of the panel, in pt-BR; contract 3.3,
 * 7.2): one place for every changelog the service writes. Migration 0029 put the English ones stored
 * before into these words.
 */
export const AGENT_CHANGELOG = {
  created: 'Criado',
  imported: 'Importado',
  duplicatedFrom: (name: string) => `Duplicado de "${name}"`,
  /** `fields`: the view's names of what changed (systemPrompt, model, ...). */
  updated: (fields: readonly string[]) => (fields.length === 0 ? 'Atualizado (sem alterações)' : `Atualizado: ${fields.join(', ')}`),
  restored: (version: number) => `Restaurado para versão ${version}`,
} as const;

/** The changelog's shapes, for the API's description. */
export const AGENT_CHANGELOG_SHAPES =
  'Criado, Importado, Duplicado de "<nome>", Atualizado: <campos>, Atualizado (sem alterações), Restaurado para versão <n>';
