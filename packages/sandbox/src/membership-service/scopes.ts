/** The v2 scopes (spec: Authentication, "v2 scopes"). A creator token holds all of them (§2). */
export const V2_SCOPES = [
  'identity',
  'identity[email]',
  'identity.memberships',
  'campaigns',
  'w:campaigns.webhook',
  'campaigns.members',
  'campaigns.members[email]',
  'campaigns.members.address',
  'campaigns.posts',
] as const;

export type V2Scope = (typeof V2_SCOPES)[number];

/**
 * v1 scopes and the v2 scopes they stand for (spec: "v1 scope mapped to v2 scopes"). Used only for
 * the default scope of an authorize request that names none (Authentication §11).
 */
export const V1_SCOPE_MAP: Readonly<Record<string, readonly V2Scope[]>> = {
  campaigns: ['campaigns'],
  'my-campaign': ['campaigns'],
  pledges: ['campaigns.members', 'campaigns.members[email]', 'campaigns.members.address'],
  'pledges-to-me': ['identity.memberships'],
  users: ['identity', 'identity[email]'],
};

/** Authentication §11: the default when `scope` is omitted. */
export const DEFAULT_V1_SCOPES = ['users', 'pledges-to-me', 'my-campaign'] as const;

export function isV2Scope(value: string): value is V2Scope {
  return (V2_SCOPES as readonly string[]).includes(value);
}

/** Trigger names (spec: Events, Triggers). */
export const MEMBER_TRIGGERS = [
  'members:create',
  'members:update',
  'members:delete',
  'members:pledge:create',
  'members:pledge:update',
  'members:pledge:delete',
] as const;

export const POST_TRIGGERS = ['posts:publish', 'posts:update', 'posts:delete'] as const;

export const ALL_TRIGGERS: readonly string[] = [...MEMBER_TRIGGERS, ...POST_TRIGGERS];
