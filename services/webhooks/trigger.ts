import {
  claimDelivery,
  countTrigger,
  findWebhookByToken,
  markExecutionWebhook,
  releaseDelivery,
  setDeliveryExecution,
  webhookSecretContext,
  type Webhook,
  type WebhookWithSecret,
} from '../../db/webhooks-store';
import { openSecret, secretsKeyFromHex, SecretsKeyMissingError } from '../../lib/secret-box';
import { InvalidInputError, NotFoundError, UnavailableError } from '../errors';
import { executeAgent } from '../executions';
import type { WebhookDeps } from './deps';
import { signatureMatches } from './signature';
import { existingWebhook, WEBHOOK_NOT_FOUND } from './webhooks';

/** Running a webhook's target: the panel's test (contract 3.7) and the public call (contract "External trigger"). */

export const PIPELINES_NOT_AVAILABLE = 'pipeline targets are not available yet';
/** Bounds of the payload's fields (those of POST /agents/:id/execute). */
export const PAYLOAD_TEXT_MAX = 100_000;
const DEFAULT_TASK = 'Webhook trigger';
const TEST_TASK = 'Teste de webhook';

/** The call is not signed as required: 401 with the contract's message. */
export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

/** The webhook is switched off: 403. */
export class WebhookInactiveError extends Error {
  override name = 'WebhookInactiveError';
  constructor() {
    super('Webhook desativado');
  }
}

export interface TestedWebhook {
  success: true;
  message: string;
  executionId: string;
}

/**
 * The panel's "test": runs the target now with the task "Teste de webhook", source `webhook-test`,
 * broadcast to every client (no client id). An inactive webhook may be tested; an inactive agent is
 * refused at once (InvalidInputError). Not counted as a trigger.
 */
export async function testWebhook(deps: WebhookDeps, id: string): Promise<TestedWebhook> {
  const webhook = await existingWebhook(deps, id);
  const executionId = await startTarget(deps, webhook, { task: TEST_TASK, instructions: '' }, 'webhook-test');
  return { success: true, message: 'Webhook disparado com sucesso', executionId };
}

async function startTarget(deps: WebhookDeps, webhook: Webhook, run: { task: string; instructions: string }, source: 'webhook' | 'webhook-test'): Promise<string> {
  if (webhook.targetType !== 'agent') throw new InvalidInputError(PIPELINES_NOT_AVAILABLE);
  const { executionId } = await executeAgent(deps, webhook.targetId, null, { ...run, source });
  await markExecutionWebhook(deps.db, executionId, webhook.id);
  return executionId;
}

export interface HookCall {
  token: string;
  /** The body's bytes as received: what the signature signs. */
  rawBody: Buffer;
  /** The X-Hub-Signature-256 header, if sent. */
  signature: string | undefined;
  /** X-GitHub-Delivery or X-Webhook-Delivery, if sent: accepted once per webhook. */
  deliveryId: string | undefined;
  /** The caller's address, recorded with the call. */
  caller: string;
}

export interface HookAnswer {
  executionId: string | null;
  /** `started`; `duplicate` for a delivery id already received (nothing started). */
  status: 'started' | 'duplicate';
  webhook: string;
}

/**
 * A call of /hook/:token. In order: unknown token NotFoundError; a missing or wrong signature
 * WebhookSignatureError (when a secret applies: the webhook's own, else WEBHOOK_SECRET); inactive
 * WebhookInactiveError; a bad payload InvalidInputError; a delivery id seen before answers the first
 * call's run and starts nothing. Otherwise the call is recorded and counted, then the target starts.
 */
export async function triggerWebhook(deps: WebhookDeps, call: HookCall): Promise<HookAnswer> {
  const webhook = await findWebhookByToken(deps.db, call.token);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  checkSignature(deps, webhook, call);
  if (!webhook.active) throw new WebhookInactiveError();
  const run = agentRunOf(payloadOf(call.rawBody));
  if (webhook.targetType !== 'agent') throw new InvalidInputError(PIPELINES_NOT_AVAILABLE);

  const now = new Date();
  const claim = await claimDelivery(deps.db, webhook.id, call.deliveryId ?? null, call.caller, now);
  if (!claim.claimed) return { executionId: claim.first.executionId, status: 'duplicate', webhook: webhook.name };
  // Counted before the start, as the legacy server did: a run that then fails to start still counts.
  await countTrigger(deps.db, webhook.id, now);
  let executionId: string;
  try {
    executionId = await startTarget(deps, webhook, run, 'webhook');
  } catch (error) {
    if (call.deliveryId !== undefined) await releaseDelivery(deps.db, claim.delivery.id);
    throw error;
  }
  await setDeliveryExecution(deps.db, claim.delivery.id, executionId);
  return { executionId, status: 'started', webhook: webhook.name };
}

function checkSignature(deps: WebhookDeps, webhook: WebhookWithSecret, call: HookCall): void {
  const secret = webhook.secret ? openWebhookSecret(deps, webhook) : deps.globalSecret;
  if (secret === null) return;
  if (!call.signature) throw new WebhookSignatureError('Assinatura ausente');
  if (!signatureMatches(secret, call.rawBody, call.signature)) throw new WebhookSignatureError('Assinatura inválida');
}

function openWebhookSecret(deps: WebhookDeps, webhook: WebhookWithSecret): string {
  try {
    return openSecret(secretsKeyFromHex(deps.secretsKey), webhook.secret!, webhookSecretContext(webhook.id));
  } catch (error) {
    if (error instanceof SecretsKeyMissingError) throw new UnavailableError(error.message);
    throw error;
  }
}

/** The body as a JSON object; empty is `{}`. */
export function payloadOf(rawBody: Buffer): Record<string, unknown> {
  const text = rawBody.toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`invalid JSON body: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidInputError('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** The first of `fields` holding a non-empty string (other kinds are skipped: a provider's payload has its own `input` objects). */
function firstText(payload: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const value = payload[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (value.length > PAYLOAD_TEXT_MAX) throw new InvalidInputError(`body.${field}: at most ${PAYLOAD_TEXT_MAX} characters`);
    return value;
  }
  return undefined;
}

/** An agent's run: task from task|message|input (else "Webhook trigger"), instructions from instructions. */
export function agentRunOf(payload: Record<string, unknown>): { task: string; instructions: string } {
  return { task: firstText(payload, ['task', 'message', 'input']) ?? DEFAULT_TASK, instructions: firstText(payload, ['instructions']) ?? '' };
}
