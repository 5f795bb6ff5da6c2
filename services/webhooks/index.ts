/** The webhook use cases (docs/webhooks.md): CRUD for the panel, its test, and the public call. */
export type { WebhookDeps } from './deps';
export {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  updateWebhook,
  webhookViewSchema,
  type WebhookInput,
  type WebhookUpdate,
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
} from './trigger';
export { SIGNATURE_HEADER } from './signature';
