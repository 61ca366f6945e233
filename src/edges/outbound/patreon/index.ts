export type {
  CampaignDetails,
  Identity,
  MemberDetails,
  MemberTrigger,
  PatreonClient,
  PatreonClientOptions,
  ReadOptions,
} from './patreon-client';
export { MEMBER_TRIGGERS, POST_TRIGGERS, createPatreonClient } from './patreon-client';
export type { Post, PostStretch } from './posts';
export { MAX_POST_PAGES, POST_FIELDS, parsePost } from './posts';
export type { DialectMemory, DialectSource, DialectStore, KeyValueStore, Rename, RenameKey, ServiceDialect } from './dialect';
export { RENAMES, createDialectMemory, dialectOfBaseUrl, keyValueDialectStore, memoryDialectStore, nameIn } from './dialect';
export type { BudgetLimits, RateWindow, RequestBudget, RequestPriority } from './request-budget';
export { DEFAULT_BUDGET_LIMITS, PATREON_PUBLISHED_LIMITS, createRequestBudget, tokenKeyOf } from './request-budget';
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
export type { MemberPage, QueryFor } from './members-iterator';
export {
  MEMBERS_INCLUDE,
  MEMBERS_PAGE_COUNT,
  MEMBERS_PAGE_COUNT_WITH_PLEDGE_HISTORY,
  iterateMemberPages,
  membersQuery,
} from './members-iterator';
export type { AuthorizeUrlInput, OAuthClient, OAuthClientOptions, OAuthTokens, TokenEndpointDeps } from './oauth';
export { AUTHORIZE_PATH, TOKEN_PATH, authorizeUrl, createOAuthClient, exchangeCode, pkceChallenge, pkcePair, refreshToken } from './oauth';
export type {
  Campaign,
  ChargeStatus,
  Member,
  MemberContext,
  MemberReading,
  PatronStatus,
  Tier,
  UnreadableMember,
  User,
  Webhook,
} from './resources';
export {
  CAMPAIGN_BASE_FIELDS,
  CHARGE_STATUSES,
  MEMBER_FIELDS,
  PATRON_STATUSES,
  TIER_BASE_FIELDS,
  USER_FIELDS,
  WEBHOOK_FIELDS,
  campaignFields,
  discordUserIdOf,
  memberFields,
  parseCampaign,
  parseMember,
  parseTier,
  parseUser,
  parseWebhook,
  readMember,
  tierFields,
} from './resources';
export type { TierRoleIds } from '../../../core/tier-roles';
export { TIER_ROLE_ID_ATTRIBUTES, parseTierRoleIds, roleIdsForGuild } from '../../../core/tier-roles';
