import type { PatronMessages } from '../membership/patron-messages';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { SecretBox } from '../../edges/outbound/store/secret-box';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { MemberIntake } from '../membership/member-intake';
import type { Reconciler } from '../sync/reconciler';
import type { DiscordSignIn } from '../discord-sign-in';
import { DISCORD_CALLBACK_PATH, createDiscordStep } from './discord-step';
import { createLinkService } from './link-service';
import { createOneTimeLinks } from './one-time-links';
import { createStatusService } from './status-service';
import type { DiscordStep } from './discord-step';
import type { LinkService } from './link-service';
import type { OneTimeLinks } from './one-time-links';
import type { StatusService } from './status-service';

export interface LinkingDeps {
  repos: Pick<Repositories, 'links' | 'snapshots' | 'guilds' | 'campaigns' | 'ledger' | 'linkTokens'>;
  accounts: CreatorAccounts;
  reconciler: Reconciler;
  /** Where the patron's memberships come in (src/app/membership/member-intake.ts). */
  intake: MemberIntake;
  /** Reads the Discord account a membership is linked to (its names, for the result page). */
  discordUsers: Pick<GuildDirectory, 'getUser'>;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** `$PUBLIC_URL`, known once the server listens. */
  publicUrl: () => string;
  /** The address of a server's join page, shown by `/link`. */
  joinUrl?: (guildId: string) => Promise<string>;
  /** The one sign-in with Discord: a `/link` or `/connect` link is followed only by the account that ran the command. */
  discordSignIn: DiscordSignIn;
  /** The direct message to a patron whose membership was just linked (when the server sends it). */
  patronMessages?: Pick<PatronMessages, 'afterLink'>;
}

export function createLinking(deps: LinkingDeps): Linking {
  const { repos, clock, logger } = deps;
  const redirectUri = () => `${deps.publicUrl()}/oauth/callback`;
  const oneTimeLinks = createOneTimeLinks({ repo: repos.linkTokens, box: deps.box, clock, publicUrl: deps.publicUrl });
  const link = createLinkService({
    ...repos,
    oneTimeLinks,
    accounts: deps.accounts,
    reconciler: deps.reconciler,
    intake: deps.intake,
    discordUsers: deps.discordUsers,
    clock,
    logger,
    metrics: deps.metrics,
    redirectUri,
    ...(deps.joinUrl ? { joinUrl: deps.joinUrl } : {}),
    ...(deps.patronMessages ? { patronMessages: deps.patronMessages } : {}),
  });
  const status = createStatusService({ ...repos, reconciler: deps.reconciler });
  const discordStep = createDiscordStep({
    signIn: deps.discordSignIn,
    oneTimeLinks,
    redirectUri: () => `${deps.publicUrl()}${DISCORD_CALLBACK_PATH}`,
  });
  return { oneTimeLinks, link, status, redirectUri, discordStep };
}

/**
 * The patron side: one-time links (`/link`, `/connect`) and the Discord sign-in that opens them,
 * the OAuth link of a membership to a Discord account (`/link`, `/unlink`), and the explanation of
 * a member's roles (`/status`).
 */
export interface Linking {
  oneTimeLinks: OneTimeLinks;
  link: LinkService;
  status: StatusService;
  redirectUri(): string;
  discordStep: DiscordStep;
}
