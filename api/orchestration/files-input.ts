import { z } from 'zod';
import { RELATIVE_PATH_MAX } from '../../services/files';

/** A path relative to the projects area, given once; its rules (no `..`, no symlink) are the use cases' (services/files/area.ts). */
const relativePath = z.string({ error: 'Informe uma única vez, como texto' }).max(RELATIVE_PATH_MAX);

/** GET, DELETE /files, GET /files/download, /files/download-folder: `?path=` (absent: the root). */
export const filesQuery = z.strictObject({
  path: relativePath
    .optional()
    .transform((value) => value ?? '')
    .meta({ description: "Relativo à área de projetos; ausente ou '' é a raiz" }),
});

/** POST /files/publish: `{path}`, a top-level folder's name; absent or empty is the contract's 'path é obrigatório'. */
export const publishBody = z.strictObject({
  path: relativePath
    .optional()
    .meta({ description: 'O nome de uma pasta do primeiro nível da área (obrigatório: ausente ou vazio é 400)' }),
});
