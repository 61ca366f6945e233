import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../support/clock';
import { SandboxUsageError } from './state';

/**
 * The OAuth2 scopes the stand-in grants (docs/discord-api-notes.md §1.4). Others (`bot`,
 * `applications.commands`, `rpc`, …) start flows the stand-in does not play and are refused on the
 * authorize page.
 */
export const OAUTH2_SCOPES = ['identify', 'email', 'guilds', 'guilds.join', 'guilds.members.read', 'connections'] as const;
export type OAuth2Scope = (typeof OAUTH2_SCOPES)[number];

export function isOAuth2Scope(scope: string): scope is OAuth2Scope {
  return (OAUTH2_SCOPES as readonly string[]).includes(scope);
}

/** "expires_in": 604800 in the docs' example: seven days, in seconds (docs/discord-api-notes.md §1.3). */
export const ACCESS_TOKEN_LIFETIME_S = 604_800;
/** Discord does not document the code's lifetime; codes are single-use and the stand-in keeps them 10 minutes. */
export const CODE_LIFETIME_MS = 10 * 60_000;

/** What an access token stands for when it authenticates a request (`Authorization: Bearer …`). */
export interface UserGrant {
  userId: string;
  /** The application the user authorized; a token of another application cannot add members for ours. */
  applicationId: string;
  scopes: readonly string[];
  expiresAt: Date;
}

export interface OAuth2TokenPair {
  accessToken: string;
  refreshToken: string;
  /** Seconds, as in the token response. */
  expiresIn: number;
  scopes: string[];
}

export interface PendingAuthorization {
  id: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  /** PKCE S256 challenge, when the request carried one. */
  codeChallenge: string | null;
  expiresAt: Date;
  used: boolean;
}

interface CodeRecord {
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  expiresAt: Date;
  used: boolean;
}

interface TokenRecord {
  value: string;
  kind: 'access' | 'refresh';
  userId: string;
  applicationId: string;
  scopes: string[];
  /** Refresh tokens do not expire; they are revoked or rotated. */
  expiresAt: Date | null;
  revoked: boolean;
  /** The other token of the pair. */
  partner: string;
}

function token(): string {
  return randomBytes(22).toString('base64url');
}

/** `BASE64URL(SHA256(verifier))`, RFC 7636 §4.2. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * The application's OAuth2 side: its client secret and redirect URIs, authorize requests waiting for
 * the user, single-use codes, and token pairs. One authorization per user and application: revoking
 * any token ends every token of it (docs/discord-api-notes.md §1.3) and the authorization itself, so
 * the user is asked again next time, `prompt=none` or not (the app leaves their Authorized Apps).
 * The people's side of the web: a browser that logged in on the authorize page stays logged in
 * (a session cookie), as on discord.com.
 */
export class OAuth2Store {
  clientSecret = token();
  redirectUris: string[] = [];
  readonly pending = new Map<string, PendingAuthorization>();
  private readonly codes = new Map<string, CodeRecord>();
  private readonly tokens = new Map<string, TokenRecord>();
  /** The scopes each user has authorized our application for (their Authorized Apps entry). */
  private readonly authorizations = new Map<string, Set<string>>();
  /** Browser sessions of the authorize page: session token → the user logged in. */
  private readonly sessions = new Map<string, string>();

  constructor(
    private readonly clock: Clock,
    readonly applicationId: string,
  ) {}

  private now(): number {
    return this.clock.now().getTime();
  }

  openAuthorization(input: {
    redirectUri: string;
    scopes: string[];
    state: string | null;
    codeChallenge: string | null;
  }): PendingAuthorization {
    const pending: PendingAuthorization = {
      id: token(),
      ...input,
      expiresAt: new Date(this.now() + CODE_LIFETIME_MS),
      used: false,
    };
    this.pending.set(pending.id, pending);
    return pending;
  }

  /** The pending request a consent form names, while it is unanswered and fresh. */
  openRequest(id: string): PendingAuthorization | null {
    const pending = this.pending.get(id);
    if (!pending || pending.used || pending.expiresAt.getTime() <= this.now()) return null;
    return pending;
  }

  /** The user clicked Authorize: the application is authorized for these scopes (added to any earlier ones). */
  authorize(userId: string, scopes: readonly string[]): void {
    const granted = this.authorizations.get(userId) ?? new Set<string>();
    for (const scope of scopes) granted.add(scope);
    this.authorizations.set(userId, granted);
  }

  /** Whether the user's authorization of the application covers every scope asked (what `prompt=none` skips on). */
  isAuthorized(userId: string, scopes: readonly string[]): boolean {
    const granted = this.authorizations.get(userId);
    return granted !== undefined && scopes.every((s) => granted.has(s));
  }

  /** A browser logs in on the authorize page: the value of its session cookie. */
  openSession(userId: string): string {
    const session = token();
    this.sessions.set(session, userId);
    return session;
  }

  /** The user a browser's session cookie names, or null. */
  sessionUser(session: string | undefined): string | null {
    return session ? (this.sessions.get(session) ?? null) : null;
  }

  issueCode(pending: PendingAuthorization, userId: string): string {
    pending.used = true;
    const code = token();
    this.codes.set(code, {
      userId,
      redirectUri: pending.redirectUri,
      scopes: pending.scopes,
      codeChallenge: pending.codeChallenge,
      expiresAt: new Date(this.now() + CODE_LIFETIME_MS),
      used: false,
    });
    return code;
  }

  /** Takes a code once: unknown, used or expired codes give null. */
  takeCode(code: string): CodeRecord | null {
    const record = this.codes.get(code);
    if (!record || record.used || record.expiresAt.getTime() <= this.now()) return null;
    record.used = true;
    return record;
  }

  issue(userId: string, scopes: readonly string[], applicationId = this.applicationId): OAuth2TokenPair {
    const access = token();
    const refresh = token();
    const base = { userId, applicationId, scopes: [...scopes], revoked: false };
    this.tokens.set(access, {
      ...base,
      value: access,
      kind: 'access',
      expiresAt: new Date(this.now() + ACCESS_TOKEN_LIFETIME_S * 1000),
      partner: refresh,
    });
    this.tokens.set(refresh, { ...base, value: refresh, kind: 'refresh', expiresAt: null, partner: access });
    return { accessToken: access, refreshToken: refresh, expiresIn: ACCESS_TOKEN_LIFETIME_S, scopes: [...scopes] };
  }

  /** A live access token's grant; null for anything else (refresh tokens authenticate nothing). */
  grantOf(accessToken: string): UserGrant | null {
    const record = this.tokens.get(accessToken);
    if (!record || record.kind !== 'access' || record.revoked || (record.expiresAt?.getTime() ?? 0) <= this.now()) return null;
    return {
      userId: record.userId,
      applicationId: record.applicationId,
      scopes: record.scopes,
      expiresAt: record.expiresAt ?? new Date(0),
    };
  }

  /** Rotates a live refresh token of our application into a new pair; null when it is not one. */
  refresh(refreshToken: string): OAuth2TokenPair | null {
    const record = this.tokens.get(refreshToken);
    if (!record || record.kind !== 'refresh' || record.revoked || record.applicationId !== this.applicationId) return null;
    record.revoked = true;
    return this.issue(record.userId, record.scopes);
  }

  /** Ends the whole authorization the token belongs to; false when it is no token of our application. */
  revoke(value: string): boolean {
    const record = this.tokens.get(value);
    if (!record || record.applicationId !== this.applicationId) return false;
    this.revokeAuthorization(record.userId, record.applicationId);
    return true;
  }

  /** What "Deauthorize" in the user's Authorized Apps does: every token of that user and application dies, and the authorization with them. */
  revokeAuthorization(userId: string, applicationId = this.applicationId): void {
    for (const record of this.tokens.values()) {
      if (record.userId === userId && record.applicationId === applicationId) record.revoked = true;
    }
    if (applicationId === this.applicationId) this.authorizations.delete(userId);
  }

  expireAccessToken(accessToken: string): void {
    const record = this.tokens.get(accessToken);
    if (!record || record.kind !== 'access') throw new SandboxUsageError('not an access token of this sandbox');
    record.expiresAt = new Date(this.now() - 1);
  }

  /** Every pair issued to the user by any route, live or not, so a test can prove none was kept. */
  issuedTo(userId: string): OAuth2TokenPair[] {
    const pairs: OAuth2TokenPair[] = [];
    for (const record of this.tokens.values()) {
      if (record.kind !== 'access' || record.userId !== userId) continue;
      pairs.push({
        accessToken: record.value,
        refreshToken: record.partner,
        expiresIn: ACCESS_TOKEN_LIFETIME_S,
        scopes: [...record.scopes],
      });
    }
    return pairs;
  }
}
