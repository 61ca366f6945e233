import { z } from 'zod';
import type { Faults } from './faults';
import type { Route, SandboxRequest, SandboxResponse } from './http-kit';
import { mediaType, plainJson, route } from './http-kit';
import type { MembershipServiceSandbox } from './sandbox';
import { PATREON_CHARGE_STATUSES } from './dialect';
import { V2_SCOPES } from './scopes';

const PREFIX = '/__sandbox';

const patronStatus = z.enum(['active_patron', 'declined_patron', 'former_patron']).nullable();
const chargeStatus = z.enum(PATREON_CHARGE_STATUSES).nullable();
const dateInput = z.string().nullable();
const jsonValue = z.json();

const userBody = z.strictObject({
  fullName: z.string().min(1),
  discordUserId: z.string().nullable().optional(),
  email: z.string().optional(),
});

const tierBody = z.strictObject({
  title: z.string().min(1),
  amountCents: z.number().int().nonnegative(),
  published: z.boolean().optional(),
  description: z.string().optional(),
  chatRoleIds: jsonValue.optional(),
  discordRoleIds: jsonValue.optional(),
});

const membershipBody = z.strictObject({
  userId: z.string(),
  campaignId: z.string().optional(),
  patronStatus: patronStatus.optional(),
  tierIds: z.array(z.string()).optional(),
  isFollower: z.boolean().optional(),
  isFreeTrial: z.boolean().optional(),
  isGifted: z.boolean().optional(),
  lastChargeDate: dateInput.optional(),
  lastChargeStatus: chargeStatus.optional(),
  nextChargeDate: dateInput.optional(),
  pledgeRelationshipStart: dateInput.optional(),
  currentlyEntitledAmountCents: z.number().int().nullable().optional(),
  willPayAmountCents: z.number().int().optional(),
  lifetimeSupportCents: z.number().int().optional(),
  campaignLifetimeSupportCents: z.number().int().optional(),
  note: z.string().optional(),
  trigger: z.union([z.string(), z.array(z.string())]).optional(),
  deliver: z.boolean().optional(),
});

const changeBody = z.strictObject({ trigger: z.union([z.string(), z.array(z.string())]).optional(), deliver: z.boolean().optional() });

const generateBody = z.strictObject({
  campaignId: z.string().optional(),
  count: z.number().int().positive().max(200_000),
  seed: z.union([z.number(), z.string()]),
  tierIds: z.array(z.string()).optional(),
});

const faultBody = z.strictObject({
  method: z.string().optional(),
  path: z.string().optional(),
  /** A regular expression source, for paths with ids in them. */
  pathPattern: z.string().optional(),
  status: z.union([z.number().int().min(100).max(599), z.literal('reset')]),
  times: z.number().int().positive().optional(),
  /** Fail every matching request until cleared. */
  persistent: z.boolean().optional(),
  afterMatching: z.number().int().nonnegative().optional(),
  retryAfterSeconds: z.number().nonnegative().optional(),
  retryAfterIn: z.enum(['header', 'body']).optional(),
  detail: z.string().optional(),
});

const repeatCursorBody = z.strictObject({
  page: z.number().int().min(2),
  campaignId: z.string().optional(),
  mode: z.enum(['same-cursor', 'new-cursor']).optional(),
  times: z.number().int().positive().optional(),
});

const postBody = z.strictObject({
  campaignId: z.string().optional(),
  title: z.string().nullable().optional(),
  content: z.string().nullable().optional(),
  isPublic: z.boolean().optional(),
  trigger: z.string().optional(),
});

const tokenBody = z.strictObject({ userId: z.string(), scopes: z.array(z.enum(V2_SCOPES)) });
const redirectBody = z.strictObject({ uri: z.url() });

function bodyOf<T>(schema: z.ZodType<T>, req: SandboxRequest): { ok: true; value: T } | { ok: false; response: SandboxResponse } {
  if (req.body.length > 0 && mediaType(req.headers) !== 'application/json') {
    return { ok: false, response: plainJson(400, { error: 'control routes take application/json' }) };
  }
  let raw: unknown = {};
  try {
    if (req.body.length > 0) raw = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { ok: false, response: plainJson(400, { error: 'the body is not valid JSON' }) };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, response: plainJson(400, { error: z.prettifyError(parsed.error) }) };
  return { ok: true, value: parsed.data };
}

/** Runs a control action; a thrown Error (unknown id, tier of another campaign) is a 400. */
function attempt(action: () => unknown, status = 200): SandboxResponse {
  try {
    const result = action();
    return plainJson(status, result === undefined ? { ok: true } : result);
  } catch (e) {
    return plainJson(400, { error: e instanceof Error ? e.message : String(e) });
  }
}

/**
 * The HTTP control API for people poking at the demo (`/__sandbox/...`, JSON). Tests call the
 * typed methods of {@link MembershipServiceSandbox} directly; these routes expose the main ones.
 * They are not part of the spec, not logged in `requests()` and never faulted.
 */

const resourceKind = z.enum(['member', 'user', 'tier', 'campaign']);
export function controlRoutes(sandbox: MembershipServiceSandbox, faults: Faults): Route[] {
  return [
    route('GET', PREFIX, () =>
      plainJson(200, {
        url: sandbox.url,
        clientId: sandbox.clientId,
        creatorUserId: sandbox.creatorUserId,
        campaignId: sandbox.campaignId,
        routes: [
          'POST /__sandbox/users',
          'PATCH /__sandbox/users/:id',
          'POST /__sandbox/campaigns/:id/tiers',
          'PUT /__sandbox/memberships',
          'DELETE /__sandbox/members/:id',
          'PUT /__sandbox/members/:id/attributes',
          'GET /__sandbox/members/:id',
          'POST /__sandbox/generate',
          'POST /__sandbox/posts',
          'GET /__sandbox/webhooks',
          'POST /__sandbox/webhooks/:id/pause',
          'POST /__sandbox/webhooks/:id/retry',
          'GET /__sandbox/deliveries',
          'GET|DELETE /__sandbox/requests',
          'POST|DELETE /__sandbox/faults',
          'POST /__sandbox/faults/repeat-cursor',
          'POST /__sandbox/redirect-uris',
          'POST /__sandbox/tokens',
        ],
      }),
    ),
    route('POST', `${PREFIX}/users`, (req) => {
      const body = bodyOf(userBody, req);
      return body.ok ? attempt(() => sandbox.createUser(body.value), 201) : body.response;
    }),
    route('PATCH', `${PREFIX}/users/:id`, (req) => {
      const body = bodyOf(z.strictObject({ fullName: z.string().optional(), discordUserId: z.string().nullable().optional() }), req);
      return body.ok ? attempt(() => sandbox.updateUser(req.params.id ?? '', body.value)) : body.response;
    }),
    route('POST', `${PREFIX}/campaigns/:id/tiers`, (req) => {
      const body = bodyOf(tierBody, req);
      return body.ok ? attempt(() => sandbox.createTier(req.params.id ?? '', body.value), 201) : body.response;
    }),
    route('PUT', `${PREFIX}/memberships`, (req) => {
      const body = bodyOf(membershipBody, req);
      if (!body.ok) return body.response;
      const { userId, campaignId, trigger, deliver, ...input } = body.value;
      return attempt(() => sandbox.setMembership(userId, campaignId ?? sandbox.campaignId, input, { trigger, deliver }));
    }),
    route('GET', `${PREFIX}/members/:id`, (req) => {
      const member = sandbox.getMember(req.params.id ?? '');
      return member ? plainJson(200, member) : plainJson(404, { error: 'no such member' });
    }),
    route('DELETE', `${PREFIX}/members/:id`, (req) => {
      const body = bodyOf(changeBody, req);
      return body.ok ? attempt(() => sandbox.deleteMember(req.params.id ?? '', body.value)) : body.response;
    }),
    route('POST', `${PREFIX}/generate`, (req) => {
      const body = bodyOf(generateBody, req);
      if (!body.ok) return body.response;
      const { campaignId, ...rest } = body.value;
      return attempt(() => {
        const generated = sandbox.generateMembers({ ...rest, campaignId: campaignId ?? sandbox.campaignId });
        return {
          count: generated.memberIds.length,
          firstMemberIds: generated.memberIds.slice(0, 10),
          firstUserIds: generated.userIds.slice(0, 10),
        };
      }, 201);
    }),
    route('POST', `${PREFIX}/posts`, (req) => {
      const body = bodyOf(postBody, req);
      if (!body.ok) return body.response;
      const { campaignId, trigger, ...input } = body.value;
      return attempt(() => sandbox.publishPost(campaignId ?? sandbox.campaignId, input, { trigger }), 201);
    }),
    route('PUT', `${PREFIX}/members/:id/attributes`, (req) => {
      const body = bodyOf(z.record(z.string(), jsonValue).nullable(), req);
      return body.ok ? attempt(() => sandbox.overrideMemberAttributes(req.params.id ?? '', body.value)) : body.response;
    }),
    route('PUT', `${PREFIX}/resources/:type/:id/attributes`, (req) => {
      const body = bodyOf(z.record(z.string(), jsonValue).nullable(), req);
      const type = resourceKind.safeParse(req.params.type);
      if (!type.success) return plainJson(400, { error: 'type must be member, user, tier or campaign' });
      return body.ok ? attempt(() => sandbox.overrideAttributes(type.data, req.params.id ?? '', body.value)) : body.response;
    }),
    route('PUT', `${PREFIX}/resources/:type/:id/omitted`, (req) => {
      const body = bodyOf(z.array(z.string()), req);
      const type = resourceKind.safeParse(req.params.type);
      if (!type.success) return plainJson(400, { error: 'type must be member, user, tier or campaign' });
      return body.ok ? attempt(() => sandbox.omitAttributes(type.data, req.params.id ?? '', body.value)) : body.response;
    }),
    route('POST', `${PREFIX}/types/:type/retired`, (req) => {
      const body = bodyOf(z.array(z.string()), req);
      return body.ok ? attempt(() => sandbox.retireAttributes(req.params.type ?? '', body.value)) : body.response;
    }),
    route('GET', `${PREFIX}/webhooks`, () => plainJson(200, sandbox.webhooks())),
    route('POST', `${PREFIX}/webhooks/:id/pause`, (req) => attempt(() => sandbox.pauseWebhook(req.params.id ?? ''))),
    route('POST', `${PREFIX}/webhooks/:id/retry`, (req) => attempt(() => sandbox.retryWebhook(req.params.id ?? ''))),
    route('GET', `${PREFIX}/deliveries`, () => plainJson(200, sandbox.deliveries())),
    route('GET', `${PREFIX}/requests`, () => plainJson(200, sandbox.requests())),
    route('DELETE', `${PREFIX}/requests`, () => attempt(() => sandbox.resetRequests())),
    route('POST', `${PREFIX}/faults`, (req) => {
      const body = bodyOf(faultBody, req);
      if (!body.ok) return body.response;
      const { pathPattern, persistent, path, times, ...rest } = body.value;
      return attempt(
        () => ({
          id: sandbox.injectFault({
            ...rest,
            path: pathPattern !== undefined ? new RegExp(pathPattern) : path,
            times: persistent ? Infinity : times,
          }),
        }),
        201,
      );
    }),
    route('POST', `${PREFIX}/faults/repeat-cursor`, (req) => {
      const body = bodyOf(repeatCursorBody, req);
      return body.ok ? attempt(() => ({ id: sandbox.injectRepeatCursor(body.value) }), 201) : body.response;
    }),
    route('GET', `${PREFIX}/faults`, () =>
      plainJson(
        200,
        faults.active().map((f) => ({ ...f, remaining: Number.isFinite(f.remaining) ? f.remaining : 'unlimited' })),
      ),
    ),
    route('DELETE', `${PREFIX}/faults`, () => attempt(() => sandbox.clearFaults())),
    route('POST', `${PREFIX}/redirect-uris`, (req) => {
      const body = bodyOf(redirectBody, req);
      return body.ok ? attempt(() => sandbox.registerRedirectUri(body.value.uri)) : body.response;
    }),
    route('POST', `${PREFIX}/tokens`, (req) => {
      const body = bodyOf(tokenBody, req);
      return body.ok ? attempt(() => sandbox.issueTokens(body.value.userId, body.value.scopes), 201) : body.response;
    }),
  ];
}
