export type {
  CampaignDetails,
  Identity,
  MemberDetails,
  MemberTrigger,
  PatreonClient,
  PatreonClientOptions,
  TierRoleField,
} from './patreon-client';
export { DEFAULT_TIER_ROLE_FIELDS, MEMBER_TRIGGERS, POST_TRIGGERS, createPatreonClient } from './patreon-client';
export type {
  CreatorSession,
  CreatorSessionOptions,
  CreatorSessionStatus,
  CreatorTokenStore,
  StoredCreatorTokens,
} from './creator-session';
export { REFRESH_COOLDOWN_MS, createCreatorSession } from './creator-session';
export type { PatreonApiErrorInit, PatreonErrorKind, ServiceErrorEntry } from './errors';
export { PatreonApiError, isPatreonApiError, kindForStatus } from './errors';
export type { Http, HttpOptions, HttpRequest, HttpResponse, RequestInfo, RetryPolicy } from './http';
export { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, createHttp, retryAfterSeconds } from './http';
export type { IncludedIndex, JsonApiDocument, QuerySpec, Resource, ResourceIdentifier } from './json-api';
export { buildQuery, indexIncluded, nextCursor, paginationTotal, parseDocument, relatedId, relatedIds } from './json-api';
export type { MemberPage } from './members-iterator';
export { MEMBERS_INCLUDE, iterateMemberPages } from './members-iterator';
export type { AuthorizeUrlInput, OAuthClient, OAuthClientOptions, OAuthTokens, TokenEndpointDeps } from './oauth';
export { AUTHORIZE_PATH, TOKEN_PATH, authorizeUrl, createOAuthClient, exchangeCode, refreshToken } from './oauth';
export type { Campaign, ChargeStatus, Member, MemberContext, PatronStatus, Tier, User, Webhook } from './resources';
export {
  CAMPAIGN_FIELDS,
  MEMBER_FIELDS,
  TIER_BASE_FIELDS,
  USER_FIELDS,
  WEBHOOK_FIELDS,
  discordUserIdOf,
  parseCampaign,
  parseMember,
  parseTier,
  parseUser,
  parseWebhook,
} from './resources';
export type { TierRoleIds } from '../../core/tier-roles';
export { TIER_ROLE_ID_ATTRIBUTES, parseTierRoleIds, roleIdsForGuild } from '../../core/tier-roles';
