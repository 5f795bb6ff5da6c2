import type { ExecutionDeps } from '../executions';

/** What the webhook use cases need (docs/application-layer.md): the executions' deps, the secrets key and the global signing secret. */
export interface WebhookDeps extends ExecutionDeps {
  /** AGENT_SECRETS_KEY (hex): seals the per-webhook secrets; null: they can be removed, not set. */
  secretsKey: string | null;
  /** WEBHOOK_SECRET: when set, every call must be signed (with the webhook's own secret when it has one). */
  globalSecret: string | null;
}
