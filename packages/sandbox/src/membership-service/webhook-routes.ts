import type { Authenticated } from './auth';
import { authenticate, isResponse, renderContextFor } from './auth';
import type { Route, SandboxRequest, SandboxResponse } from './http-kit';
import { apiError, json, mediaType, route } from './http-kit';
import type { ResourceType } from './json-api';
import { parseJsonApiQuery, renderDocument } from './json-api';
import { WEBHOOK_ATTRIBUTES } from './resource-types';
import { ALL_TRIGGERS } from './scopes';
import type { ServiceDialect } from './dialect';
import type { Store } from './store';
import type { WebhookDelivery } from './webhook-delivery';
import type { WebhookRecord } from './types';

const V2 = '/api/oauth2/v2';
const SCOPE = 'w:campaigns.webhook';

export interface WebhookRouteDeps {
  store: Store;
  types: ReadonlyMap<string, ResourceType>;
  delivery: WebhookDelivery;
  baseUrl: () => string;
  dialect?: ServiceDialect;
  /**
   * `omitted`: the list never carries the campaign relationship, even with `include=campaign`, as
   * Patreon's documented sample shows none (docs/patreon-api-notes.md §2.5).
   */
  listCampaign?: 'included' | 'omitted';
}

/**
 * `paused` of a PATCH. Patreon's documented sample sends the string `"false"` (docs/patreon-api-notes.md §5.4),
 * so its dialect takes `"true"`/`"false"` as well; the spec's takes booleans only.
 */
function readPaused(value: unknown, dialect: ServiceDialect): boolean | undefined | 'invalid' {
  if (value === undefined || typeof value === 'boolean') return value;
  if (dialect === 'patreon' && (value === 'true' || value === 'false')) return value === 'true';
  return 'invalid';
}

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

type BodyResult = { ok: true; body: Body } | { ok: false; response: SandboxResponse };

function readJsonBody(req: SandboxRequest): BodyResult {
  const type = mediaType(req.headers);
  if (type !== 'application/json' && type !== 'application/vnd.api+json') {
    return { ok: false, response: apiError(400, 'The body must be JSON (Content-Type: application/json).') };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { ok: false, response: apiError(400, 'The body is not valid JSON.') };
  }
  if (!isObject(parsed)) return { ok: false, response: apiError(400, 'The body must be a JSON object.') };
  return { ok: true, body: parsed };
}

function checkTriggers(value: unknown): string[] | string {
  if (!Array.isArray(value) || value.length === 0) return 'data.attributes.triggers must be a non-empty list of trigger names';
  const out: string[] = [];
  for (const t of value) {
    if (typeof t !== 'string' || !ALL_TRIGGERS.includes(t)) return `unknown trigger ${JSON.stringify(t)}`;
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

function checkUri(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** The v2 webhook endpoints (spec: "v2 webhook endpoints", scope `w:campaigns.webhook`). */
export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  const { store, types, delivery } = deps;
  const dialect = deps.dialect ?? 'spec';

  /** POST and PATCH answer the whole webhook: every attribute, plus id and type (spec). */
  const full = (auth: Authenticated, webhook: WebhookRecord, status: number): SandboxResponse => {
    const doc = renderDocument(
      renderContextFor(store, deps.baseUrl(), auth),
      types,
      { fields: new Map([['webhook', WEBHOOK_ATTRIBUTES]]), include: {} },
      {
        type: 'webhook',
        ids: [webhook.id],
        single: true,
      },
    );
    return json(status, { data: doc.data, links: { self: `${deps.baseUrl()}${V2}/webhooks/${webhook.id}` } });
  };

  const list = route('GET', `${V2}/webhooks`, (req) => {
    const auth = authenticate(store, req.headers, [SCOPE]);
    if (isResponse(auth)) return auth;
    const query = parseJsonApiQuery(req.query, { allowedIncludes: ['client', 'campaign'], paged: false }, types);
    if (!query.ok) return apiError(400, query.error);
    const ids = [...store.webhooks.values()].filter((w) => w.clientId === auth.client.id).map((w) => w.id);
    const asked =
      deps.listCampaign === 'omitted'
        ? { ...query.value, include: Object.fromEntries(Object.entries(query.value.include).filter(([name]) => name !== 'campaign')) }
        : query.value;
    const doc = renderDocument(renderContextFor(store, deps.baseUrl(), auth), types, asked, { type: 'webhook', ids, single: false });
    return json(200, { ...doc, meta: { pagination: { total: ids.length } } });
  });

  const create = route('POST', `${V2}/webhooks`, (req) => {
    const auth = authenticate(store, req.headers, [SCOPE]);
    if (isResponse(auth)) return auth;
    if ([...req.query.keys()].length > 0) return apiError(400, 'POST /webhooks takes no query parameters.');
    const read = readJsonBody(req);
    if (!read.ok) return read.response;
    const data = read.body.data;
    if (!isObject(data) || data.type !== 'webhook') return apiError(400, 'data.type must be "webhook".');
    const attributes = data.attributes;
    if (!isObject(attributes)) return apiError(400, 'data.attributes is required.');
    for (const key of Object.keys(attributes))
      if (key !== 'triggers' && key !== 'uri') return apiError(400, `data.attributes.${key} cannot be set on create.`);
    const triggers = checkTriggers(attributes.triggers);
    if (typeof triggers === 'string') return apiError(400, triggers);
    const uri = checkUri(attributes.uri);
    if (!uri) return apiError(400, 'data.attributes.uri must be a fully qualified http(s) URI.');
    const relationships = data.relationships;
    const campaignRef = isObject(relationships) && isObject(relationships.campaign) ? relationships.campaign.data : undefined;
    if (!isObject(campaignRef) || campaignRef.type !== 'campaign' || typeof campaignRef.id !== 'string') {
      return apiError(400, 'data.relationships.campaign.data must be {type: "campaign", id}.');
    }
    const campaign = store.campaigns.get(campaignRef.id);
    if (!campaign) return apiError(404, 'No such campaign.');
    if (campaign.creatorId !== auth.user.id) return apiError(403, 'Webhooks can be created only on the token user\u2019s own campaigns.');
    const webhook: WebhookRecord = {
      id: store.nextWebhookId(),
      clientId: auth.client.id,
      campaignId: campaign.id,
      uri,
      triggers,
      secret: store.secret(32),
      paused: false,
      numConsecutiveTimesFailed: 0,
      lastAttemptedAt: null,
      queue: [],
    };
    store.webhooks.set(webhook.id, webhook);
    return full(auth, webhook, 201);
  });

  const update = route('PATCH', `${V2}/webhooks/:id`, (req) => {
    const auth = authenticate(store, req.headers, [SCOPE]);
    if (isResponse(auth)) return auth;
    if ([...req.query.keys()].length > 0) return apiError(400, 'PATCH /webhooks/{id} takes no query parameters.');
    const webhook = store.webhooks.get(req.params.id ?? '');
    if (!webhook) return apiError(404, 'No such webhook.');
    if (webhook.clientId !== auth.client.id) return apiError(403, 'Only the client that created a webhook may change it.');
    const read = readJsonBody(req);
    if (!read.ok) return read.response;
    const data = read.body.data;
    if (!isObject(data) || data.type !== 'webhook' || data.id !== webhook.id)
      return apiError(400, 'data must be {type: "webhook", id: <the webhook id>, attributes}.');
    const attributes = data.attributes;
    if (!isObject(attributes)) return apiError(400, 'data.attributes is required.');
    for (const key of Object.keys(attributes)) {
      if (key !== 'triggers' && key !== 'uri' && key !== 'paused') return apiError(400, `data.attributes.${key} cannot be changed.`);
    }
    let triggers: string[] | undefined;
    if (attributes.triggers !== undefined) {
      const checked = checkTriggers(attributes.triggers);
      if (typeof checked === 'string') return apiError(400, checked);
      triggers = checked;
    }
    let uri: string | undefined;
    if (attributes.uri !== undefined) {
      const checked = checkUri(attributes.uri);
      if (!checked) return apiError(400, 'data.attributes.uri must be a fully qualified http(s) URI.');
      uri = checked;
    }
    const paused = readPaused(attributes.paused, dialect);
    if (paused === 'invalid') return apiError(400, 'data.attributes.paused must be a boolean.');
    if (triggers) webhook.triggers = triggers;
    if (uri) webhook.uri = uri;
    if (paused === true) webhook.paused = true;
    if (paused === false) delivery.resume(webhook);
    return full(auth, webhook, 200);
  });

  return [list, create, update];
}
