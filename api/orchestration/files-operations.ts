import { z } from 'zod';
import { fileListingSchema, publicationSchema } from '../../services/files';
import { errorAnswer, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { filesQuery, publishBody } from './files-input';

/**
 * The projects area's operations (api/orchestration/files-routes.ts) as the OpenAPI document
 * describes them. Every 400 of theirs is the `{error}` envelope with the contract's message
 * ('Caminho inválido', ...), which the document adds as the operation's bad request.
 */
const tags = ['Arquivos'];

const listingExample = {
  path: 'loja',
  parent: '',
  entries: [
    { name: 'css', type: 'directory', size: null, modified: '2026-11-21T12:00:00.000Z', extension: null },
    { name: 'index.html', type: 'file', size: 13, modified: '2026-11-21T12:00:00.000Z', extension: 'html' },
    { name: 'README.md', type: 'file', size: 42, modified: '2026-11-21T12:00:00.000Z', extension: 'md' },
  ],
  truncated: false,
};

const attachment = { description: 'attachment; filename="<nome>" (e filename* em UTF-8 além do Latin-1)', schema: z.string() };
const nosniff = { description: 'nosniff: o navegador salva, nunca mostra como uma página', schema: z.literal('nosniff') };

export const filesOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/files',
    operationId: 'listFiles',
    summary: 'Lista uma pasta da área de projetos (a raiz sem `path`)',
    description:
      'Pastas primeiro, depois por nome; arquivos ocultos e links simbólicos não aparecem. 400 `Caminho inválido` (fuga da área, caminho absoluto, ' +
      'caractere de controle, um link no caminho) ou `Caminho não é um diretório`.',
    tags,
    query: filesQuery,
    responses: {
      200: jsonAnswer('A pasta', fileListingSchema, listingExample),
      404: errorAnswer('Diretório não encontrado'),
    },
  },
  {
    method: 'delete',
    path: '/api/files',
    operationId: 'deleteFileEntry',
    summary: 'Exclui um arquivo ou uma pasta com tudo o que ela tem',
    description:
      'Um link simbólico é excluído ele mesmo, nunca o seu alvo. 400 `Não é permitido excluir o diretório raiz` ou `Caminho inválido`.',
    tags,
    query: filesQuery,
    responses: {
      200: jsonAnswer('Excluído', z.object({ success: z.literal(true) }), { success: true }),
      404: errorAnswer('Arquivo ou pasta não encontrado'),
      409: errorAnswer('A pasta mudou durante a exclusão, ou tem mais de 128 níveis: o que foi excluído continua excluído'),
    },
  },
  {
    method: 'get',
    path: '/api/files/download',
    operationId: 'downloadFile',
    summary: 'Baixa um arquivo da área de projetos',
    description:
      'Uma navegação `<a download>` do painel, autorizada pelo cookie de sessão. 400 `Caminho inválido` ou `Caminho não é um arquivo` (uma pasta, a raiz).',
    tags,
    query: filesQuery,
    responses: {
      200: {
        description: 'O arquivo, como anexo',
        contentType: 'application/octet-stream',
        headers: {
          'Content-Disposition': attachment,
          'Content-Length': { description: 'O tamanho do arquivo ao ser aberto', schema: z.number().int().min(0) },
          'X-Content-Type-Options': nosniff,
        },
      },
      404: errorAnswer('Arquivo não encontrado'),
    },
  },
  {
    method: 'get',
    path: '/api/files/download-folder',
    operationId: 'downloadFolder',
    summary: 'Baixa uma pasta (a área inteira sem `path`) como .tar.gz',
    description:
      'O arquivo é escrito enquanto a pasta é percorrida (sem tamanho conhecido); as entradas ficam sob `<pasta>/`, sem links simbólicos. ' +
      'Nome `<pasta>.tar.gz`, `projetos.tar.gz` para a raiz. 400 `Caminho inválido` ou `Caminho não é um diretório`.',
    tags,
    query: filesQuery,
    responses: {
      200: {
        description: 'A pasta em tar.gz, como anexo',
        contentType: 'application/gzip',
        headers: { 'Content-Disposition': attachment, 'X-Content-Type-Options': nosniff },
      },
      404: errorAnswer('Diretório não encontrado'),
    },
  },
  {
    method: 'post',
    path: '/api/files/publish',
    operationId: 'publishProject',
    summary: 'Publica uma pasta do primeiro nível como site estático (uma cópia, servida em /sites/<nome>/)',
    description:
      'Copia a pasta (sem arquivos ocultos nem links) e troca a cópia anterior; com GIT_PUBLISH_DIR, envia a cópia a um repositório. ' +
      '400 `path é obrigatório`, `Caminho inválido` (também um caminho aninhado ou um nome com ponto), `Caminho não é uma pasta`, ' +
      'ou projeto grande demais (mais de 10 000 arquivos ou 200 MB, ou pastas aninhadas demais).',
    tags,
    body: { schema: publishBody, example: { path: 'loja' } },
    responses: {
      200: jsonAnswer('Publicado', publicationSchema, {
        status: 'Publicado',
        siteUrl: 'http://localhost:3000/sites/loja/',
        repoUrl: null,
        projectName: 'loja',
        message: 'Cópia de "loja" publicada em http://localhost:3000/sites/loja/; alterações posteriores exigem publicar de novo.',
      }),
      404: errorAnswer('Projeto não encontrado'),
    },
  },
];
