import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server, ServerCredentials, status as grpcStatus, type ServiceDefinition } from '@grpc/grpc-js';
import { config } from '../../lib/config';
import { connectTemporal } from '../../temporal/connection';
import { describeNamespaceOnce } from '../../temporal/namespace';
import { unusedPort } from '../support/ports';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';

/**
 * A process started with a TEMPORAL_NAMESPACE the Temporal server does not have (docs/connections.md,
 * "The namespace"): the real entry point (main.ts) against the local dev server, whose other namespaces
 * the global set-up registers. The service itself never creates one.
 */

/** Before the check, the ranking worker waited 30 s for the namespace, then died with a gRPC stack trace. */
const EXIT_BOUND_MS = 20_000;

const started: ServiceProcess[] = [];
afterEach(() => {
  for (const service of started.splice(0)) service.child.kill('SIGKILL');
});

function start(env: Record<string, string>): ServiceProcess {
  const service = startServiceProcess(env);
  started.push(service);
  return service;
}

/** The process's exit code, or 'still running' after `ms`. */
async function exitCodeWithin(service: ServiceProcess, ms: number): Promise<number | null | 'still running'> {
  const bound = new AbortController();
  const timeout = sleep(ms, 'still running' as const, { signal: bound.signal }).catch(() => 'still running' as const);
  try {
    return await Promise.race([service.exited, timeout]);
  } finally {
    bound.abort();
  }
}

const freshNamespace = () => `missing-${randomUUID()}`;
const linesNaming = (output: string, namespace: string) => output.split('\n').filter((line) => line.includes(namespace));

async function expectStillMissing(namespace: string): Promise<void> {
  const connection = await connectTemporal(config.temporal);
  try {
    await expect(connection.workflowService.describeNamespace({ namespace })).rejects.toMatchObject({ code: grpcStatus.NOT_FOUND });
  } finally {
    await connection.close();
  }
}

describe('a process whose Temporal namespace does not exist', () => {
  it.each(['ranking-worker', 'agents-worker'])(
    'PROCESS_ROLES=%s exits 1 at once with one line naming the namespace and how to create it',
    async (role) => {
      const namespace = freshNamespace();
      const worker = start({ PROCESS_ROLES: role, TEMPORAL_NAMESPACE: namespace });
      const code = await exitCodeWithin(worker, EXIT_BOUND_MS);
      const output = worker.output();
      expect({ code, output }).toEqual({ code: 1, output: expect.any(String) });
      // One line, the logger's: no stack trace, no second account of the same failure.
      expect(output).not.toMatch(/^\s+at |"stack":/m);
      const lines = linesNaming(output, namespace);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual(
        expect.objectContaining({
          level: 60,
          namespace,
          temporalAddress: config.temporal.address,
          msg:
            `Temporal namespace "${namespace}" does not exist on ${config.temporal.address}: create it, then start again; ` +
            `self-hosted: temporal operator namespace create --namespace ${namespace} --retention 30d --address ${config.temporal.address} ` +
            `(the workers add the runs' search attributes when they start); ` +
            `Temporal Cloud: create it in the Cloud UI or with tcld namespace create, retention 30 days`,
        }),
      );
      await expectStillMissing(namespace);
    },
  );

  it('PROCESS_ROLES=api warns in that one line and serves on', async () => {
    const namespace = freshNamespace();
    const port = await unusedPort();
    const api = start({ PROCESS_ROLES: 'api', HTTP_PORT: String(port), TEMPORAL_NAMESPACE: namespace });
    await waitForLog(api, 'ready');
    const lines = linesNaming(api.output(), namespace);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual(
      expect.objectContaining({
        level: 40,
        msg: expect.stringContaining(
          `does not exist on ${config.temporal.address}: what the API starts in Temporal fails until it is created; self-hosted: temporal operator namespace create --namespace ${namespace} --retention 30d`,
        ),
      }),
    );
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    await expectStillMissing(namespace);
  });
});

describe('describing the namespace at start', () => {
  let server: Server;
  let address: string;
  beforeAll(async () => {
    // A frontend that refuses DescribeNamespace as a Temporal Cloud API key may be refused (and knows no other call).
    const raw = (buffer: Buffer) => buffer;
    const definition: ServiceDefinition = {
      describeNamespace: {
        path: '/temporal.api.workflowservice.v1.WorkflowService/DescribeNamespace',
        requestStream: false,
        responseStream: false,
        requestSerialize: raw,
        requestDeserialize: raw,
        responseSerialize: raw,
        responseDeserialize: raw,
      },
    };
    server = new Server();
    server.addService(definition, {
      describeNamespace: (_call: unknown, callback: (error: { code: number; details: string }) => void) =>
        callback({ code: grpcStatus.PERMISSION_DENIED, details: 'Request unauthorized.' }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    address = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  it('tells a refusal (PERMISSION_DENIED) from a missing namespace, and an existing one from both', async () => {
    expect(await describeNamespaceOnce({ ...config.temporal, address, namespace: freshNamespace() }, 5_000)).toBe('refused');
    expect(await describeNamespaceOnce({ ...config.temporal, namespace: freshNamespace() }, 5_000)).toBe('missing');
    expect(await describeNamespaceOnce(config.temporal, 5_000)).toBe('present');
  });
});
