/**
 * What a webhook delivery of the service looks like from outside: where it arrives, which headers
 * carry what, how large it may be. The HTTP endpoint (src/edges/inbound/web/webhook-endpoint.ts), the
 * registration and the processor all read these, so they live here, free of express.
 */

/** Where the service delivers (docs/contract.md, HTTP routes); registration builds `$PUBLIC_URL` + this. */
export const WEBHOOK_PATH = '/webhooks/patreon';

/** Bodies above this are refused with 413 before they are read to the end. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/**
 * Production sends `X-Patreon-Signature`, the spec names `X-Service-Signature` (docs/tech-facts.md
 * §8; spec: Events, Delivery §2). Either may carry the signature; a delivery with both is accepted
 * when one of them verifies (each is checked on its own, so neither weakens the other).
 */
export const SIGNATURE_HEADERS = ['x-patreon-signature', 'x-service-signature'] as const;
export const EVENT_HEADER = 'x-patreon-event';

/** `data.relationships.campaign.data.id` of a delivery body, if present (the endpoint checks it against the signing webhook's). */
export { payloadCampaignId } from '../../edges/outbound/patreon/delivery-parser';
