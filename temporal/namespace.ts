import { status as grpcStatus } from '@grpc/grpc-js';
import { msToTs } from '@temporalio/common/lib/time';
import type { Config } from '../lib/config';
import { connectTemporal } from './connection';

/**
 * Registers a namespace when it does not exist yet (tests run in their own namespace so
 * a developer's running workers never pick up test tasks). Waits until it is usable:
 * registration is asynchronous on the server.
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

function isGrpcCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
