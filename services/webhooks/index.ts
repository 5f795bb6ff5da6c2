/** The webhook use cases (docs/webhooks.md): CRUD for the panel, its test, and the public call. */
export type { WebhookDeps } from './deps';
export {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  updateWebhook,
  WEBHOOK_NOT_FOUND,
  WEBHOOK_TARGET_TYPES,
  webhookViewSchema,
  type WebhookInput,
  type WebhookUpdate,
  type WebhookView,
} from './webhooks';
export {
  DELIVERY_TAKEOVER_AFTER_MS,
  DeliveryInProgressError,
  hookAnswerSchema,
  testedWebhookSchema,
  testWebhook,
  triggerWebhook,
  WebhookInactiveError,
  WebhookSignatureError,
  type HookAnswer,
  type HookCall,
} from './trigger';
export { SIGNATURE_HEADER, signatureOf } from './signature';
