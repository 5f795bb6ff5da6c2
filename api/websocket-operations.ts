import { z } from 'zod';
import { errorAnswer, type OperationSpec } from './openapi/operation';

/**
 * The live-output WebSocket's handshake (docs/websocket.md), as far as OpenAPI can say it: an HTTP GET
 * that upgrades, its parameters and its refusals. Marked `webSocket`: the WebSocket handler serves it,
 * not a router, and it is not fuzzed (schemathesis speaks HTTP). `/` takes the same handshake.
 */
const handshakeQuery = z.object({
  clientId: z.string().max(128).optional().meta({
    description: 'The client id (the X-Client-Id of its HTTP calls); without it, or the header, the socket is closed at once with 1008',
  }),
  token: z.string().optional().meta({ description: 'AUTH_TOKEN, for browsers (which cannot set Authorization on a WebSocket)' }),
});
const handshakeHeaders = z.object({
  Upgrade: z.literal('websocket'),
  Connection: z.string().meta({ description: 'Upgrade' }),
  'Sec-WebSocket-Key': z.string(),
  'Sec-WebSocket-Version': z.literal('13'),
});

export const webSocketOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/ws',
    operationId: 'openLiveOutputSocket',
    summary: 'Abre o WebSocket da saída ao vivo (também em /)',
    description:
      'Upgrades to a WebSocket whose server sends JSON text frames: `connected`, `execution_queued`, `execution_started`, `execution_output`, `execution_complete`, `execution_error`, `execution_canceled`, `execution_retry`, `report_generated` and the pipeline messages (docs/websocket.md). A late client catches up with GET /api/executions/history/{id} and the `seq` of the messages.',
    tags: ['Saída ao vivo'],
    webSocket: true,
    query: handshakeQuery,
    headers: handshakeHeaders,
    responses: {
      101: { description: 'Switching Protocols: the socket is open; the first frame is `connected`' },
      404: errorAnswer('Sem o cabeçalho Upgrade, não há recurso HTTP aqui'),
      429: errorAnswer('Sockets abertos demais deste endereço (WEBSOCKET_MAX_SOCKETS_PER_CLIENT)'),
    },
  },
];
