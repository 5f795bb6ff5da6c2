import WebSocket from 'ws';

export interface SocketProbe {
  socket: WebSocket;
  messages: unknown[];
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  nextMessage(): Promise<unknown>;
}

/** Opens a WebSocket and records what it receives; rejects if the handshake is refused. */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<SocketProbe> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const messages: unknown[] = [];
    const waiters: Array<(message: unknown) => void> = [];
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as unknown;
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolveClose) => {
      socket.on('close', (code, reason) => resolveClose({ code, reason: reason.toString() }));
    });
    socket.once('unexpected-response', (_request, response) => reject(new Error(`handshake refused: ${response.statusCode}`)));
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        messages,
        closed,
        nextMessage: () =>
          messages.length > 0 ? Promise.resolve(messages.shift()) : new Promise((resolveMessage) => waiters.push(resolveMessage)),
      }),
    );
  });
}

/** A handshake the server refused before the upgrade: its HTTP status, headers and JSON body. */
export interface RefusedHandshake {
  status: number;
  authenticate: string | null;
  body: unknown;
}

/** Attempts a handshake that must be refused; rejects when a socket opens instead. */
export function refusedHandshake(url: string, headers: Record<string, string> = {}): Promise<RefusedHandshake> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const authenticate = response.headers['www-authenticate'];
        resolve({ status: response.statusCode ?? 0, authenticate: typeof authenticate === 'string' ? authenticate : null, body: text ? JSON.parse(text) : null });
      });
    });
    socket.once('error', reject);
    socket.once('open', () => {
      socket.close();
      reject(new Error(`the handshake to ${url} was accepted`));
    });
  });
}
