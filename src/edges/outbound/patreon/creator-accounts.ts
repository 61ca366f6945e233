import type { CampaignRepository } from '../store/repositories/campaign-repository';
import type { CredentialRepository } from '../store/repositories/credential-repository';
import {
  type CreatorSession,
  type CreatorTokenStore,
  type OAuthClient,
  type PatreonClient,
  type PatreonClientOptions,
  PatreonApiError,
  createCreatorSession,
  createOAuthClient,
  createPatreonClient,
} from '.';
import type { DialectStore, KeyValueStore } from './dialect';
import { type OddValueLog, createOddValueLog } from './odd-values';
import { createDialectMemory } from './dialect';
import type { OAuthTokens } from './oauth';
import type { BudgetLimits, PatreonBudgetStore } from './request-budget';
import { createRequestBudget } from './request-budget';
import type { ServiceDialect } from './dialect';

/** Everything a Patreon client needs but a session: the registered client and the injected I/O. */
export type ServiceOptions = Omit<PatreonClientOptions, 'session' | 'sessionTokenKey'>;

export interface CreatorAccounts {
  oauth: OAuthClient;
  /** For calls with a patron's own token (`getIdentity`): it holds no creator session. */
  patronClient: PatreonClient;
  clientForCreator(creatorUserId: string): PatreonClient;
  sessionForCreator(creatorUserId: string): CreatorSession;
  /** The client of the campaign's creator, or null when the campaign is unknown. */
  clientForCampaign(campaignId: string): Promise<PatreonClient | null>;
  /** Stores a creator's tokens (from `/connect` or the environment) and returns who they are. */
  connect(tokens: OAuthTokens): Promise<{ creatorUserId: string; fullName: string; client: PatreonClient }>;
  /** The odd values every client tolerated lately (a null tier title, a missing name), for `/doctor`. */
  oddValues: Pick<OddValueLog, 'list' | 'flush'>;
}

/**
 * The creators whose campaigns Tierlink serves: one session and client per creator, the tokens
 * sealed in the database (a guild can serve campaigns of creators who each connected).
 */
export function createCreatorAccounts(deps: {
  service: ServiceOptions;
  credentials: CredentialRepository;
  campaigns: CampaignRepository;
  /** Where the learned dialect survives a restart (the database); without it each process learns it again. */
  dialectStore?: DialectStore;
  /** The request budget's limits per dialect (default: Patreon's published ones). */
  budgetLimits?: Partial<Record<ServiceDialect, BudgetLimits | null>>;
  /** Where the request budget counts: shared by every instance on PostgreSQL; this process's memory when absent. */
  budgetStore?: PatreonBudgetStore;
  /** Runs a creator's token refresh under a lock every instance shares (`Database.withLock`); in-process when absent. */
  refreshLock?: <T>(name: string, refresh: () => Promise<T>) => Promise<T>;
  /** Where the odd values are kept for every instance's `/doctor` (the database); this process's memory when absent. */
  oddValueStore?: KeyValueStore;
}): CreatorAccounts {
  const { credentials } = deps;
  // One dialect and one budget for the registered client: every creator's client and the patron client share them.
  const dialect =
    deps.service.dialect ??
    createDialectMemory({
      baseUrl: deps.service.baseUrl,
      logger: deps.service.logger,
      ...(deps.dialectStore ? { store: deps.dialectStore } : {}),
    });
  const budget =
    deps.service.budget ??
    createRequestBudget({
      clock: deps.service.clock,
      sleep: deps.service.sleep,
      dialect,
      logger: deps.service.logger,
      // Patreon counts per client and per grant: the client's key names it, for a store other installations may share.
      clientKey: `client:${deps.service.clientId}`,
      ...(deps.budgetLimits ? { limits: deps.budgetLimits } : {}),
      ...(deps.budgetStore ? { store: deps.budgetStore } : {}),
    });
  const oddValues = createOddValueLog({
    clock: deps.service.clock,
    logger: deps.service.logger,
    ...(deps.oddValueStore ? { store: deps.oddValueStore } : {}),
  });
  const service: ServiceOptions = {
    ...deps.service,
    dialect,
    budget,
    onOddValue: (odd) => {
      deps.service.onOddValue?.(odd);
      oddValues.note(odd);
    },
  };
  const oauth = createOAuthClient(service);
  const sessions = new Map<string, CreatorSession>();
  const clients = new Map<string, PatreonClient>();

  const noSession: CreatorSession = {
    withAccessToken: () =>
      Promise.reject(
        new PatreonApiError({
          kind: 'not_connected',
          method: 'SESSION',
          path: 'creator',
          message: 'no creator session on the patron client',
        }),
      ),
    replaceTokens: async () => {},
    status: async () => ({ connected: false, expiresAt: null, refreshFailedAt: null, cooldownUntil: null }),
  };
  const patronClient = createPatreonClient({ ...service, session: noSession });

  function sessionForCreator(creatorUserId: string): CreatorSession {
    let session = sessions.get(creatorUserId);
    if (!session) {
      const store: CreatorTokenStore = {
        async load() {
          const [tokens, status] = await Promise.all([credentials.load(creatorUserId), credentials.status(creatorUserId)]);
          if (!tokens) return null;
          return {
            accessToken: tokens.accessToken,
            refreshToken: tokens.refreshToken,
            // An unknown expiry (tokens from the environment) is trusted until a 401 says otherwise.
            expiresAt: tokens.expiresAt ?? new Date(8.64e15),
            scopes: tokens.scopes,
            refreshFailedAt: status?.refreshFailedAt ?? null,
          };
        },
        save: (tokens) => credentials.save(creatorUserId, tokens, service.clock.now()),
        saveRefreshFailure: (at) => credentials.markRefreshFailed(creatorUserId, 'refresh failed', at),
        ...(deps.refreshLock
          ? { exclusive: <T>(refresh: () => Promise<T>) => deps.refreshLock!(`creator-refresh:${creatorUserId}`, refresh) }
          : {}),
      };
      session = createCreatorSession({ store, refresh: oauth.refreshToken, clock: service.clock, logger: service.logger });
      sessions.set(creatorUserId, session);
    }
    return session;
  }

  function clientForCreator(creatorUserId: string): PatreonClient {
    let client = clients.get(creatorUserId);
    if (!client) {
      // Patreon counts a token's requests per grant, across refreshes (docs/patreon-api-notes.md §6).
      client = createPatreonClient({ ...service, session: sessionForCreator(creatorUserId), sessionTokenKey: `creator:${creatorUserId}` });
      clients.set(creatorUserId, client);
    }
    return client;
  }

  return {
    oauth,
    patronClient,
    clientForCreator,
    sessionForCreator,
    async clientForCampaign(campaignId) {
      const campaign = await deps.campaigns.get(campaignId);
      return campaign ? clientForCreator(campaign.creatorUserId) : null;
    },
    async connect(tokens) {
      const { user } = await patronClient.getIdentity(tokens.accessToken);
      await sessionForCreator(user.id).replaceTokens(tokens);
      return { creatorUserId: user.id, fullName: user.fullName, client: clientForCreator(user.id) };
    },
    oddValues,
  };
}
