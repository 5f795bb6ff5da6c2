import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A git server over HTTP for tests: git's own `git http-backend` (smart HTTP, as a CGI) behind
 * Basic authentication, serving the bare repositories of `root`. Records every request's path and
 * the credentials it carried, so a test can tell who sent which.
 */

export interface GitHttpServer {
  url: string;
  /** Each request: the service asked for and the user:password it authenticated with (null: none). */
  requests: { service: string | null; path: string; credentials: string | null }[];
  close(): Promise<void>;
}

export async function startGitHttpServer(root: string, username: string, password: string): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const authorization = request.headers.authorization ?? null;
    const credentials = authorization?.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8') : null;
    requests.push({
      service:
        url.searchParams.get('service') ??
        (url.pathname.endsWith('git-receive-pack')
          ? 'git-receive-pack'
          : url.pathname.endsWith('git-upload-pack')
            ? 'git-upload-pack'
            : null),
      path: url.pathname,
      credentials,
    });
    if (authorization !== expected) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      response.end('authentication required\n');
      return;
    }
    const cgi = spawn('/usr/bin/git', ['http-backend'], {
      env: {
        PATH: '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        REMOTE_USER: username,
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    request.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const lines = head.subarray(0, end).toString('utf8').split('\r\n');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + 4));
    });
    cgi.once('close', () => response.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
