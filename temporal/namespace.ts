import { status as grpcStatus } from '@grpc/grpc-js';
import { msToTs } from '@temporalio/common/lib/time';
import type { Config } from '../lib/config';
import { connectTemporal } from './connection';

/**
 * Registers a namespace when it does not exist yet (tests run in their own namespace so
 * a developer's running workers never pick up test tasks). Waits until it is usable:
 * registration is asynchronous on the server. Never called by the service itself, which only
 * checks at start that its namespace exists (describeNamespaceOnce; docs/connections.md).
 */
export async function ensureNamespace(
  temporal: Config['temporal'],
  namespace: string = temporal.namespace,
  retentionDays = 1,
): Promise<void> {
  const connection = await connectTemporal(temporal);
  try {
    const service = connection.workflowService;
    try {
      await service.describeNamespace({ namespace });
      return;
    } catch (error) {
      if (!isGrpcCode(error, grpcStatus.NOT_FOUND)) throw error;
    }
    try {
      await service.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(`${retentionDays} days`),
      });
    } catch (error) {
      if (!isGrpcCode(error, grpcStatus.ALREADY_EXISTS)) throw error;
    }
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        await service.describeNamespace({ namespace });
        return;
      } catch (error) {
        if (!isGrpcCode(error, grpcStatus.NOT_FOUND)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    throw new Error(`namespace ${namespace} was registered but did not become visible`);
  } finally {
    await connection.close();
  }
}

/**
 * The retention the docs recommend for the service's namespace (docs/connections.md, "The namespace"):
 * Temporal Cloud's default, and a month of closed runs' histories to look into after the fact.
 */
const RECOMMENDED_RETENTION_DAYS = 30;

/** What DescribeNamespace says of the configured namespace: there, not found, or not for these credentials to ask. */
export type NamespaceState = 'present' | 'missing' | 'refused';

/**
 * One DescribeNamespace of `temporal.namespace`, no retry, within `timeoutMs` (the start check,
 * workers/connection-check.ts). Rejects on any other answer (the server not reachable, a timeout).
 * PERMISSION_DENIED is not "missing": a Temporal Cloud API key may not be allowed to describe.
 */
export async function describeNamespaceOnce(temporal: Config['temporal'], timeoutMs: number): Promise<NamespaceState> {
  const connection = await connectTemporal(temporal, { interceptors: [], connectTimeout: timeoutMs });
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection.workflowService.describeNamespace({ namespace: temporal.namespace }),
    );
    return 'present';
  } catch (error) {
    if (isGrpcCode(error, grpcStatus.NOT_FOUND)) return 'missing';
    if (isGrpcCode(error, grpcStatus.PERMISSION_DENIED)) return 'refused';
    throw error;
  } finally {
    await connection.close();
  }
}

/** How to create the namespace, self-hosted and on Temporal Cloud, in one line's tail. */
export function createNamespaceHint(namespace: string, address: string): string {
  const days = RECOMMENDED_RETENTION_DAYS;
  return (
    `self-hosted: temporal operator namespace create --namespace ${namespace} --retention ${days}d --address ${address} ` +
    `(the workers add the runs' search attributes when they start); ` +
    `Temporal Cloud: create it in the Cloud UI or with tcld namespace create, retention ${days} days`
  );
}

function isGrpcCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
