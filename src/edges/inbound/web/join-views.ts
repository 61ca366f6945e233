import type { JoinCompletion, Joined } from '../../../app/joining/join-flow';
import type { JoinPlace, JoinPreview, JoinReadiness, JoinTier } from '../../../app/joining/join-place';
import { bestEntitlement } from '../../../app/linking/status-service';
import { type T, translator } from '../../../core/i18n';
import { priceText } from '../../../core/i18n/price';
import type { MemberAddProblemCode } from '../../outbound/discord/member-adder';
import { problemLines } from './link-result-view';
import { grantReasonText, noteReasonOnPage } from './role-reasons';
import type { JoinPageView, JoinRefusalView, JoinResultView, JoinTierLine, RoleLine } from './pages/views';

/** A tier's price as the campaign states it, in the reader's language (src/core/i18n/price.ts). */
export function price(tier: Pick<JoinTier, 'amountCents' | 'currency' | 'cadence' | 'payPerName'>, t: T = translator('en')): string {
  return priceText(tier, t);
}

const tierLines = (tiers: readonly JoinTier[], t: T): JoinTierLine[] =>
  tiers.map((tier) => ({ title: tier.title, price: price(tier, t), roles: tier.roles }));

/** Why a join page cannot add anyone now, for whoever opened it. */
function notReady(readiness: Exclude<JoinReadiness, 'ready'>, t: T): { title: string; message: string; next: string } {
  const title = t('join.notReadyTitle');
  switch (readiness) {
    case 'not_connected':
      return { title, message: t('join.notConnectedMessage'), next: t('join.notConnectedNext') };
    case 'bot_not_in_server':
      return { title, message: t('join.botGoneMessage'), next: t('join.botGoneNext') };
    case 'bot_lacks_invite':
      return { title, message: t('join.noInviteMessage'), next: t('join.doctorNext') };
    case 'bot_lacks_manage_roles':
      return { title, message: t('join.noManageRolesMessage'), next: t('join.doctorNext') };
  }
}

/** `GET /join/<slug>`. */
export function joinPageView(place: JoinPlace, readiness: JoinReadiness, startHref: string, t: T = translator('en')): JoinPageView {
  return {
    campaignName: place.campaignName,
    guildName: place.guildName,
    tiers: tierLines(place.tiers, t),
    openToEveryone: place.openToEveryone,
    startHref: readiness === 'ready' ? startHref : null,
    notReady: readiness === 'ready' ? null : notReady(readiness, t),
    pledgeUrl: place.pledgeUrl,
  };
}

/** The page after joining, from what the join did in the server. */
export function joinResultView(
  done: Joined,
  tierTitle: (campaignId: string, tierId: string) => string,
  t: T = translator('en'),
): JoinResultView {
  const { outcome, place } = done;
  const applied = outcome.result?.applied ?? [];
  const added = new Set(applied.filter((c) => c.op === 'add').map((c) => c.roleId));
  const failed = new Set((outcome.result?.failed ?? []).map((f) => f.change.roleId));
  const granted: RoleLine[] = [];
  const kept: RoleLine[] = [];
  const waiting: RoleLine[] = [];
  for (const grant of outcome.desired.grants.values()) {
    if (failed.has(grant.roleId) || outcome.plan.blocked.some((b) => b.roleId === grant.roleId)) continue;
    const line = { name: grant.roleName, reason: grantReasonText(grant, tierTitle, t) };
    (outcome.pending ? waiting : added.has(grant.roleId) ? granted : kept).push(line);
  }
  const problems = problemLines(outcome, t);
  const { discordAccount: a } = done;
  return {
    outcome: outcome.pending ? 'pending' : done.kind,
    campaignName: place.campaignName,
    guildName: place.guildName,
    discordAccount: { name: a.globalName ?? a.username ?? t('page.discordUser', { id: a.userId }), username: a.username },
    serverUrl: `https://discord.com/channels/${place.guildId}`,
    tiers: outcome.entitlements.flatMap((e) => e.tierIds.map((id) => tierTitle(e.campaignId, id))),
    granted,
    kept,
    notGranted: outcome.desired.notes
      .filter((n) => n.roleName !== null)
      .map((n) => ({ name: n.roleName!, reason: noteReasonOnPage(n, t) })),
    waiting,
    problems,
    joinUrl: place.link.url,
  };
}

type Refusal = Omit<JoinRefusalView, 'campaignName' | 'guildName' | 'tiers' | 'joinUrl' | 'action'> & {
  action?: JoinRefusalView['action'];
  tiers?: JoinTierLine[];
};

function refusal(place: JoinPlace | null, view: Refusal, t: T): JoinRefusalView {
  const joinUrl = place?.link.url ?? null;
  return {
    campaignName: place?.campaignName ?? null,
    guildName: place?.guildName ?? null,
    joinUrl,
    tiers: [],
    action: joinUrl ? { label: t('join.againAction'), href: joinUrl } : null,
    ...view,
  };
}

const server = (place: JoinPlace | null, t: T) => place?.guildName ?? t('join.theServer');

/**
 * Someone whose tiers give no role in the server, on a join page that lets only patrons in. A
 * patron whose payment failed and whose grace is over is told to update the payment, not to pledge.
 */
export function notPatronView(place: JoinPlace, preview: JoinPreview, t: T = translator('en')): JoinRefusalView {
  const best = bestEntitlement(preview.planned.entitlements);
  if (best?.kind === 'lapsed' || (best?.kind === 'grace' && best.tierIds.length === 0)) {
    return refusal(
      place,
      {
        status: 403,
        tone: 'warning',
        title: t('join.lapsedTitle'),
        message: t('join.lapsedMessage', { campaign: place.campaignName, server: server(place, t) }),
        next: t('join.lapsedNext'),
        action: place.pledgeUrl ? { label: t('join.lapsedAction'), href: place.pledgeUrl } : null,
        tiers: tierLines(place.tiers, t),
      },
      t,
    );
  }
  const standing =
    best === null || best.kind === 'none'
      ? t('join.standingNone')
      : best.kind === 'active' || best.kind === 'grace'
        ? t('join.standingNoRole')
        : best.kind === 'follower'
          ? t('join.standingFollower')
          : t.locale === 'en'
            ? best.reason
            : t('join.standingFormer');
  return refusal(
    place,
    {
      status: 403,
      tone: 'info',
      title: t('join.notPatronTitle'),
      message: t('join.notPatronMessage', { server: server(place, t), campaign: place.campaignName, standing }),
      next: t('join.notPatronNext'),
      action: place.pledgeUrl ? { label: t('join.becomePatron'), href: place.pledgeUrl } : null,
      tiers: tierLines(place.tiers, t),
    },
    t,
  );
}

/** Discord did not add the person, by its code. */
function addRefusal(code: MemberAddProblemCode, p: JoinPlace | null, t: T): Refusal {
  switch (code) {
    case 'banned':
      return {
        status: 403,
        tone: 'error',
        title: t('join.bannedTitle', { server: server(p, t) }),
        message: t('join.bannedMessage'),
        next: t('join.bannedNext'),
        action: null,
      };
    case 'server_full':
      return {
        status: 409,
        tone: 'warning',
        title: t('join.fullTitle', { server: server(p, t) }),
        message: t('join.fullMessage'),
        next: t('join.fullNext'),
      };
    case 'bot_lacks_permissions':
      return {
        status: 503,
        tone: 'warning',
        title: t('join.notReadyTitle'),
        message: t('join.permsMessage', { server: server(p, t) }),
        next: t('join.permsNext'),
      };
    case 'bot_not_in_server':
      return { ...notReady('bot_not_in_server', t), status: 503, tone: 'warning' };
    case 'token_refused':
      return { status: 400, tone: 'warning', title: t('join.tokenTitle'), message: t('join.tokenMessage'), next: t('join.tokenNext') };
    case 'too_many_servers':
      return {
        status: 409,
        tone: 'warning',
        title: t('join.tooManyTitle'),
        message: t('join.tooManyMessage'),
        next: t('join.tooManyNext'),
      };
    case 'joining_limited':
      return {
        status: 403,
        tone: 'warning',
        title: t('join.limitedTitle'),
        message: t('join.limitedMessage'),
        next: t('join.limitedNext'),
      };
    case 'unavailable':
      return {
        status: 502,
        tone: 'warning',
        title: t('msg.discordDownTitle'),
        message: t('join.discordDownMessage'),
        next: t('join.waitThenOpen'),
      };
  }
}

/** The page of a join that ended without joining. */
export function joinRefusalView(
  completion: Exclude<JoinCompletion, Joined> | { kind: 'other_browser' | 'service_error' | 'service_denied'; place: JoinPlace | null },
  t: T = translator('en'),
): JoinRefusalView {
  switch (completion.kind) {
    case 'not_patron':
      return notPatronView(completion.place, completion.preview, t);
    case 'refused':
      return refusal(completion.place, addRefusal(completion.problem.code, completion.place, t), t);
    case 'denied':
      return refusal(
        completion.place,
        { status: 200, tone: 'info', title: t('join.notAddedTitle'), message: t('join.deniedMessage'), next: t('join.deniedNext') },
        t,
      );
    case 'service_denied':
      return refusal(
        completion.place,
        {
          status: 200,
          tone: 'info',
          title: t('join.notAddedTitle'),
          message: t('join.serviceDeniedMessage'),
          next: t('join.serviceDeniedNext'),
        },
        t,
      );
    case 'other_browser':
      return refusal(
        completion.place,
        {
          status: 403,
          tone: 'error',
          title: t('join.otherBrowserTitle'),
          message: t('join.otherBrowserMessage'),
          next: t('join.otherBrowserNext'),
        },
        t,
      );
    case 'bad_state':
      return refusal(
        completion.place,
        {
          status: 400,
          tone: 'error',
          title: t('join.badStateTitle'),
          message: t('join.badStateMessage'),
          next: completion.place ? t('join.openAgain') : t('join.openFromPatreon'),
        },
        t,
      );
    case 'discord_error':
      return refusal(completion.place, addRefusal('unavailable', completion.place, t), t);
    case 'service_error':
      return refusal(
        completion.place,
        {
          status: 502,
          tone: 'warning',
          title: t('msg.serviceDownTitle'),
          message: t('join.serviceDownMessage'),
          next: t('join.waitThenOpen'),
        },
        t,
      );
  }
}

/** `GET /join/<slug>` for an address that leads to no server. */
export function unknownJoinPageView(t: T = translator('en')): JoinRefusalView {
  return refusal(
    null,
    { status: 404, tone: 'info', title: t('join.unknownTitle'), message: t('join.unknownMessage'), next: t('join.unknownNext') },
    t,
  );
}
