import { createApp } from '../../api/app';
import { startHttpServer, type HttpServer } from '../../api/server';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { closeApiResources, createApiResources, type ApiResources } from '../../api/resources';

export interface TestServer {
  url: string;
  resources: ApiResources;
  http: HttpServer;
  close(): Promise<void>;
}

/** Starts the real app on an ephemeral port with real resources; `override` changes parts of the config. */
export async function startTestServer(override: (config: Config) => Config = (config) => config): Promise<TestServer> {
  const config = override(baseConfig);
  const resources = createApiResources(config, logger);
  const http = await startHttpServer(createApp(resources), { ...config.http, port: 0 }, logger);
  return {
    url: http.url,
    resources,
    http,
    async close() {
      await http.close();
      await closeApiResources(resources);
    },
  };
}
