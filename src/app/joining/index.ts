import type { DiscordUserOAuth } from '../../edges/outbound/discord/user-oauth';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { MemberAdder } from '../../edges/outbound/discord/member-adder';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Linking } from '../linking';
import type { SyncSubsystem } from '../sync';
import type { PatronMessages } from '../membership/patron-messages';
import { createJoinFlow } from './join-flow';
import type { JoinLinks } from './join-links';
import { type JoinReadiness, createJoinPlaces } from './join-place';
import type { JoinFlow } from './join-flow';
import type { JoinPlaces } from './join-place';
import type { DoctorCheck } from '../admin/doctor';
import { type Said, saidCheck, says } from '../admin/doctor-says';

export interface JoiningDeps {
  repos: Pick<Repositories, 'guilds' | 'campaigns' | 'snapshots'>;
  links: JoinLinks;
  linking: Pick<Linking, 'link' | 'oneTimeLinks'>;
  sync: Pick<SyncSubsystem, 'contexts' | 'reconciler'>;
  discord: { snapshots: GuildSnapshotCache; members: MemberAdder };
  /** Discord's OAuth2 for people (DISCORD_CLIENT_SECRET): who is joining, and leave to add them. */
  oauth: DiscordUserOAuth;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  publicUrl: () => string;
  /** PATREON_CURRENCY: the currency of prices whose campaign does not state one. */
  currency?: string;
  /** The direct message to a patron whose membership was just linked through the join page. */
  patronMessages?: Pick<PatronMessages, 'afterLink'>;
}

/** What `/doctor` says about the join page, per readiness. */
const READINESS_CHECK: Record<Exclude<JoinReadiness, 'ready'>, { ok: boolean; detail: Said; fix: Said | null }> = {
  not_connected: { ok: true, detail: says('doctorSays.joinWaits'), fix: null },
  bot_not_in_server: { ok: false, detail: says('doctorSays.joinNoServer'), fix: says('doctorSays.joinNoServerFix') },
  bot_lacks_invite: { ok: false, detail: says('doctorSays.joinNoInvite'), fix: says('doctorSays.joinNoInviteFix') },
  bot_lacks_manage_roles: { ok: false, detail: says('doctorSays.joinNoManage'), fix: says('doctorSays.manageFix') },
};

export function createJoining(deps: JoiningDeps): Joining {
  const { repos, clock, logger } = deps;
  const places = createJoinPlaces({
    ...repos,
    contexts: deps.sync.contexts,
    discordSnapshots: deps.discord.snapshots,
    links: deps.links,
    served: deps.linking.link.servedCampaigns,
    clock,
    ...(deps.currency ? { currency: deps.currency } : {}),
  });
  const flow = createJoinFlow({
    places,
    links: deps.links,
    oneTimeLinks: deps.linking.oneTimeLinks,
    link: deps.linking.link,
    oauth: deps.oauth,
    members: deps.discord.members,
    reconciler: deps.sync.reconciler,
    metrics: deps.metrics,
    logger,
    redirectUri: () => `${deps.publicUrl()}/join/callback`,
    ...(deps.patronMessages ? { patronMessages: deps.patronMessages } : {}),
  });

  return {
    links: deps.links,
    places,
    flow,

    async doctorCheck(guildId: string): Promise<DoctorCheck> {
      const [readiness, link] = await Promise.all([places.readiness(guildId), deps.links.linkOf(guildId)]);
      if (readiness === 'ready') return saidCheck('Join page', true, says('doctorSays.joinReady', { url: link.url }), null);
      const check = READINESS_CHECK[readiness];
      return saidCheck('Join page', check.ok, check.detail, check.fix);
    },
  };
}

/**
 * The join page: a public page per server from which a patron who is not in the server
 * yet signs in with the service and with Discord and arrives in the server with their tier roles.
 */
export interface Joining {
  links: JoinLinks;
  places: JoinPlaces;
  flow: JoinFlow;
  /** `/doctor`'s line about the join page: its address, or what keeps it from adding people. */
  doctorCheck(guildId: string): Promise<{ name: string; ok: boolean; detail: string; fix: string | null }>;
}
