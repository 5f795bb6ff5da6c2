import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isDuplicateKey } from '../../db/mysql-errors';
import {
  claimDelivery,
  countDelivery,
  findWebhookByToken,
  refuseDelivery,
  takeOverDelivery,
  webhookSecretContext,
  type Delivery,
  type Webhook,
  type WebhookWithSecret,
} from '../../db/webhooks-store';
import { openSecret, secretsKeyFromHex, SecretsKeyMissingError } from '../../lib/secret-box';
import { InvalidInputError, NotFoundError, SECRETS_KEY_MISSING_MESSAGE, UnavailableError } from '../errors';
import { executeAgent } from '../executions';
import { executePipeline } from '../pipelines';
import { findAgent } from '../../db/agents-store';
import { budgetRefusal } from '../budgets';
import type { WebhookDeps } from './deps';
import { signatureMatches } from './signature';
import { existingWebhook, WEBHOOK_NOT_FOUND } from './webhooks';
import { successAnswer } from '../view-schema';

/** Running a webhook's target: the panel's test (contract 3.7) and the public call (contract "External trigger"). */

/** Bounds of the payload's fields (those of POST /agents/:id/execute). */
export const PAYLOAD_TEXT_MAX = 100_000;
export const PAYLOAD_WORKING_DIRECTORY_MAX = 1_000;
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

/** What a webhook's run is given: an agent's task and instructions, or a pipeline's input and working directory. */
export interface TargetRun {
  task: string;
  instructions: string;
  /** Pipelines only: absent or null, the pipeline's own. */
  workingDirectory?: string | null;
}

/** The run started: its record, and the pipeline for a pipeline target. */
const startedTargetFields = {
  executionId: z.string().meta({ description: "The run's execution record" }),
  pipelineId: z.string().optional().meta({ description: 'A pipeline target only: the pipeline' }),
};
export type StartedTarget = z.infer<z.ZodObject<typeof startedTargetFields>>;

/** What the panel's test answers (202). */
export const testedWebhookSchema = successAnswer.extend(startedTargetFields).meta({ id: 'WebhookTestRun' });
export type TestedWebhook = z.infer<typeof testedWebhookSchema>;

/**
 * The panel's "test": runs the target now with the task (or input) "Teste de webhook", source
 * `webhook-test`, broadcast to every client (no client id). An inactive webhook may be tested; an
 * inactive agent or pipeline is refused at once (InvalidInputError). Not counted as a trigger.
 */
export async function testWebhook(deps: WebhookDeps, id: string): Promise<TestedWebhook> {
  const webhook = await existingWebhook(deps, id);
  const started = await startTarget(deps, webhook, { task: TEST_TASK, instructions: '' }, 'webhook-test');
  const message = webhook.targetType === 'pipeline' ? 'Pipeline disparada com sucesso' : 'Webhook disparado com sucesso';
  return { success: true, message, ...started };
}

/** Starts the webhook's target; `id`, when given, is the run's id (chosen before, with its delivery). */
async function startTarget(
  deps: WebhookDeps,
  webhook: Webhook,
  run: TargetRun,
  source: 'webhook' | 'webhook-test',
  id?: string,
  budgetChecked = false,
): Promise<StartedTarget> {
  if (webhook.targetType === 'pipeline') {
    const request = { input: run.task, workingDirectory: run.workingDirectory ?? null, source, webhookId: webhook.id, executionId: id };
    const { pipelineId, executionId } = await executePipeline(deps, webhook.targetId, null, request);
    return { pipelineId, executionId };
  }
  const { executionId } = await executeAgent(deps, webhook.targetId, null, {
    task: run.task,
    instructions: run.instructions,
    source,
    webhookId: webhook.id,
    executionId: id,
    budgetChecked,
  });
  return { executionId };
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

/** What a public call answers (202). */
export const hookAnswerSchema = z
  .object({
    executionId: z
      .string()
      .nullable()
      .meta({ description: "The run's execution record; for `duplicate`, the first call's run (null when that call recorded none)" }),
    /** A pipeline target's pipeline. */
    pipelineId: z.string().optional().meta({ description: 'A pipeline target only: the pipeline' }),
    /** `started`; `duplicate` for a delivery id already received (nothing started). */
    status: z
      .enum(['started', 'duplicate'])
      .meta({ description: '`duplicate`: a delivery id already received; nothing started, nothing counted' }),
    webhook: z.string().meta({ description: "The webhook's name" }),
  })
  .meta({ id: 'WebhookCallAnswer' });
export type HookAnswer = z.infer<typeof hookAnswerSchema>;

/** How long a delivery's first call may take to store its run before a repeat takes the delivery over. */
export const DELIVERY_TAKEOVER_AFTER_MS = 10_000;

/** A repeat of a delivery whose first call may still be storing its run: 503, to be sent again later. */
export class DeliveryInProgressError extends UnavailableError {
  override name = 'DeliveryInProgressError';
  constructor() {
    super('Esta entrega ainda está sendo iniciada: envie-a de novo em alguns segundos');
  }
}

/**
 * A call of /hook/:token. In order: unknown token NotFoundError; a missing or wrong signature
 * WebhookSignatureError (when a secret applies: the webhook's own, else WEBHOOK_SECRET); inactive
 * WebhookInactiveError; a bad payload InvalidInputError. Then the call is recorded with the id its
 * run will have (docs/webhooks.md "Deliveries"): a delivery id seen before answers the first call's
 * run and starts nothing, unless that call started nothing (refused, or its start failed: this call
 * is a new one) or died before storing its run (taken over after DELIVERY_TAKEOVER_AFTER_MS, with the
 * same run id; DeliveryInProgressError before). An agent target's daily budget exhausted is
 * BudgetExhaustedError (the call recorded as refused, not counted). Otherwise the delivery is counted
 * once, then the target starts.
 */
export async function triggerWebhook(deps: WebhookDeps, call: HookCall): Promise<HookAnswer> {
  const webhook = await findWebhookByToken(deps.db, call.token);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  checkSignature(deps, webhook, call);
  if (!webhook.active) throw new WebhookInactiveError();
  const payload = payloadOf(call.rawBody);
  const run = webhook.targetType === 'pipeline' ? pipelineRunOf(payload) : agentRunOf(payload);

  const now = new Date();
  const delivery = await deliveryToStart(deps, webhook, call, now);
  if ('duplicate' in delivery) return delivery.duplicate;
  if (!delivery.counted) {
    // An agent's exhausted daily budget refuses the call (409): recorded as refused, not counted, nothing started.
    const refusal = webhook.targetType === 'agent' ? await agentBudgetRefusal(deps, webhook.targetId) : null;
    if (refusal !== null) {
      await refuseDelivery(deps.db, delivery.id, 'budget');
      throw refusal;
    }
    // Counted before the start, as the legacy server did: a run that then fails to start still counts (once).
    await countDelivery(deps.db, webhook.id, delivery, now);
  }
  const executionId = delivery.executionId!;
  try {
    // A delivery counted now had its agent's budget checked just above; a repeat taking over one is checked at the start.
    const started = await startTarget(deps, webhook, run, 'webhook', executionId, !delivery.counted);
    return { ...started, status: 'started', webhook: webhook.name };
  } catch (error) {
    // Another call of this delivery stored the run first (a takeover racing a slow first call).
    if (isDuplicateKey(error)) return duplicateAnswer(webhook, executionId);
    // Unmarked (the database down too), the record is taken over by a repeat after DELIVERY_TAKEOVER_AFTER_MS.
    await refuseDelivery(deps.db, delivery.id, 'not_started').catch((markError: unknown) =>
      deps.logger.error({ err: markError, deliveryRowId: delivery.id }, 'failed start of a delivery not recorded'),
    );
    throw error;
  }
}

/**
 * The delivery record this call starts its run with, or the answer to a repeat that must start
 * nothing. The run's id is chosen here, before anything is stored, so a repeat can tell whether the
 * first call stored its run.
 */
async function deliveryToStart(
  deps: WebhookDeps,
  webhook: Webhook,
  call: HookCall,
  now: Date,
): Promise<Delivery | { duplicate: HookAnswer }> {
  const executionId = randomUUID();
  const claim = await claimDelivery(deps.db, {
    webhookId: webhook.id,
    deliveryId: call.deliveryId ?? null,
    caller: call.caller,
    executionId,
    receivedAt: now,
  });
  if (claim.claimed) return claim.delivery;
  const { first } = claim;
  let takenOver: Delivery | null;
  if (first.refused !== null) {
    // The first call started nothing: this one is a new call, with a run of its own.
    takenOver = await takeOverDelivery(deps.db, first, { caller: call.caller, executionId, receivedAt: now });
  } else if (first.runExists || first.executionId === null) {
    return { duplicate: duplicateAnswer(webhook, first.executionId) };
  } else if (now.getTime() - first.receivedAt.getTime() >= DELIVERY_TAKEOVER_AFTER_MS) {
    // The first call died before storing its run: started now under the id it chose, so that call, were
    // it only slow, collides on the record's key instead of starting a second run.
    takenOver = await takeOverDelivery(deps.db, first, { caller: call.caller, executionId: first.executionId, receivedAt: now });
  } else {
    throw new DeliveryInProgressError();
  }
  if (takenOver === null) throw new DeliveryInProgressError();
  return takenOver;
}

function duplicateAnswer(webhook: Webhook, executionId: string | null): HookAnswer {
  const pipeline = webhook.targetType === 'pipeline' ? { pipelineId: webhook.targetId } : {};
  return { ...pipeline, executionId, status: 'duplicate', webhook: webhook.name };
}

/** The refusal of a run of agent `agentId` by a daily budget; null when it may run (or is gone: executeAgent says so). */
async function agentBudgetRefusal(deps: WebhookDeps, agentId: string) {
  const agent = await findAgent(deps.db, agentId);
  return agent === null ? null : budgetRefusal(deps, agent);
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
    if (error instanceof SecretsKeyMissingError) throw new UnavailableError(SECRETS_KEY_MISSING_MESSAGE);
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
    throw new InvalidInputError(`Corpo JSON inválido; o analisador diz: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidInputError('O corpo deve ser um objeto JSON');
  return parsed as Record<string, unknown>;
}

/** The first of `fields` holding a non-empty string (other kinds are skipped: a provider's payload has its own `input` objects). */
function firstText(payload: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const value = payload[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (value.length > PAYLOAD_TEXT_MAX) throw new InvalidInputError(`body.${field}: No máximo ${PAYLOAD_TEXT_MAX} caracteres`);
    return value;
  }
  return undefined;
}

/** An agent's run: task from task|message|input (else "Webhook trigger"), instructions from instructions. */
export function agentRunOf(payload: Record<string, unknown>): TargetRun {
  return {
    task: firstText(payload, ['task', 'message', 'input']) ?? DEFAULT_TASK,
    instructions: firstText(payload, ['instructions']) ?? '',
  };
}

/**
 * A pipeline's run: input from input|task|message (else "Webhook trigger"), and `workingDirectory`
 * honoured (the legacy server ignored it although its sample curl sends it; contract 7.10), confined
 * to the roots by the pipelines' use case.
 */
export function pipelineRunOf(payload: Record<string, unknown>): TargetRun {
  const workingDirectory = payload.workingDirectory;
  if (workingDirectory !== undefined && workingDirectory !== null && typeof workingDirectory !== 'string') {
    throw new InvalidInputError('body.workingDirectory: Deve ser um caminho (texto)');
  }
  if (typeof workingDirectory === 'string' && workingDirectory.length > PAYLOAD_WORKING_DIRECTORY_MAX) {
    throw new InvalidInputError(`body.workingDirectory: No máximo ${PAYLOAD_WORKING_DIRECTORY_MAX} caracteres`);
  }
  return {
    task: firstText(payload, ['input', 'task', 'message']) ?? DEFAULT_TASK,
    instructions: '',
    workingDirectory: workingDirectory?.trim() ? workingDirectory : null,
  };
}
