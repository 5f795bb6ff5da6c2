import { createApp } from '../../api/app';
import { startHttpServer, type HttpServer } from '../../api/server';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { closeApiResources, createApiResources, type ApiResources } from '../../api/resources';
import { answerLanguage } from './answer-language';
import { openApiConformance } from './openapi-conformance';

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
  const app = createApp(resources);
  // First in the chain: every answer, error envelopes included, is checked against its description.
  app.middleware.unshift(openApiConformance());
  // And every text a person reads in it is pt-BR (test/support/answer-language.ts).
  app.middleware.unshift(answerLanguage());
  const http = await startHttpServer(app, { ...config.http, port: 0 }, logger);
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
