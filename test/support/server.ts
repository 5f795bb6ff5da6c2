import { createApp } from '../../api/app';
import { startHttpServer, type HttpServer } from '../../api/server';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { closeServices, createServices, type Services } from '../../lib/services';

export interface TestServer {
  url: string;
  services: Services;
  http: HttpServer;
  close(): Promise<void>;
}

/** Starts the real app on an ephemeral port with real services; `override` changes parts of the config. */
export async function startTestServer(override: (config: Config) => Config = (config) => config): Promise<TestServer> {
  const config = override(baseConfig);
  const services = createServices(config, logger);
  const http = await startHttpServer(createApp(services), { ...config.http, port: 0 }, logger);
  return {
    url: http.url,
    services,
    http,
    async close() {
      await http.close();
      await closeServices(services);
    },
  };
}
