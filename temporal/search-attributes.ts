import { status as grpcStatus } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { RUN_SEARCH_ATTRIBUTES } from './contracts/search-attributes';

/**
 * Registers the runs' custom search attributes (temporal/contracts/search-attributes.ts) in a
 * namespace, idempotently: the workers call it at start, the test set-up and the history recorders
 * when they prepare a namespace. Through the OperatorService of the client connection, which the dev
 * server and a production cluster both answer. Where the service's credentials may not add them
 * (a managed cluster, an operator role), add them once by hand with CREATE_COMMAND; then this only
 * lists them. A missing attribute fails every start that sets it, so failing here is loud on purpose.
 */

const KEYWORD = encodeSearchAttributeIndexedValueType('KEYWORD')!;

/** The same, by hand (docs/observability.md); on Temporal Cloud with `tcld` (or the Cloud UI), whose operator API refuses it. */
export function createCommand(namespace: string, cloud = false): string {
  if (cloud)
    return `tcld namespace search-attributes add --namespace ${namespace} ${RUN_SEARCH_ATTRIBUTES.map((key) => `--search-attribute "${key.name}=Keyword"`).join(' ')}`;
  const names = RUN_SEARCH_ATTRIBUTES.map((key) => `--name ${key.name}`).join(' ');
  return `temporal operator search-attribute create --namespace ${namespace} ${names} --type ${RUN_SEARCH_ATTRIBUTES.map(() => 'Keyword').join(' --type ')}`;
}

export type SearchAttributesOutcome = 'present' | 'added';

export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  where: { cloud?: boolean } = {},
): Promise<SearchAttributesOutcome> {
  const operator = connection.operatorService;
  const missing = async (): Promise<string[]> => {
    const { customAttributes } = await operator.listSearchAttributes({ namespace });
    const known = customAttributes ?? {};
    const wrong = RUN_SEARCH_ATTRIBUTES.filter((key) => key.name in known && known[key.name] !== KEYWORD);
    if (wrong.length > 0) {
      const types = wrong.map((key) => `${key.name} has type ${known[key.name]}`).join(', ');
      throw new Error(
        `search attributes of namespace ${namespace} have the wrong type (${types}; Keyword, ${KEYWORD}, expected): remove them, then restart`,
      );
    }
    return RUN_SEARCH_ATTRIBUTES.filter((key) => !(key.name in known)).map((key) => key.name);
  };
  const absent = await untilNamespaceKnown(missing);
  if (absent.length === 0) return 'present';
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(absent.map((name) => [name, KEYWORD])) });
  } catch (error) {
    // Another process added them meanwhile: fine. Refused (no operator rights): say how to add them by hand.
    if (codeOf(error) !== grpcStatus.ALREADY_EXISTS) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `search attributes ${absent.join(', ')} missing in namespace ${namespace} and not added (${reason}); add them with: ${createCommand(namespace, where.cloud)}`,
        { cause: error },
      );
    }
  }
  // Visible to the next start once listed (the server applies the change to its namespace cache).
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if ((await missing()).length === 0) return 'added';
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`search attributes ${absent.join(', ')} were added to namespace ${namespace} but are not listed`);
}

/**
 * A namespace just registered is described at once, yet the operator service may answer NOT_FOUND for
 * it for a few seconds (the server's namespace cache): asked again meanwhile.
 */
async function untilNamespaceKnown<T>(call: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + 30_000; ;) {
    try {
      return await call();
    } catch (error) {
      if (codeOf(error) !== grpcStatus.NOT_FOUND || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}
