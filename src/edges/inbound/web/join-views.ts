import type { JoinCompletion, Joined } from '../../../app/joining/join-flow';
import type { JoinPlace, JoinPreview, JoinReadiness, JoinTier } from '../../../app/joining/join-place';
import { bestEntitlement } from '../../../app/linking/status-service';
import type { MemberAddProblemCode } from '../../outbound/discord/member-adder';
import { problemLines } from './link-result-view';
import type { JoinPageView, JoinRefusalView, JoinResultView, JoinTierLine, RoleLine } from './pages/views';

/** "$10 a month": tiers are priced in US cents (docs/membership-service-api.md). */
export function price(amountCents: number): string {
  if (amountCents === 0) return 'free';
  const dollars = amountCents / 100;
  return `$${Number.isInteger(dollars) ? dollars : dollars.toFixed(2)} a month`;
}

const tierLines = (tiers: readonly JoinTier[]): JoinTierLine[] =>
  tiers.map((t) => ({ title: t.title, price: price(t.amountCents), roles: t.roles }));

/** Why a join page cannot add anyone now, for whoever opened it. */
const NOT_READY: Record<Exclude<JoinReadiness, 'ready'>, { title: string; message: string; next: string }> = {
  not_connected: {
    title: 'This join page is not ready',
    message: 'No Patreon campaign is connected to this server yet, so there are no tiers to check.',
    next: 'Try again later: the creator is still setting it up.',
  },
  bot_not_in_server: {
    title: 'This join page is not ready',
    message: 'Tierlink is not in this server (any more), so it cannot add anyone to it.',
    next: 'Let the creator know; Tierlink needs to be invited to the server again.',
  },
  bot_lacks_invite: {
    title: 'This join page is not ready',
    message: 'Tierlink’s bot in this server lacks the Create Invite permission, which Discord requires to add people.',
    next: 'Let the creator know: /doctor in their server says how to fix it. Try again once it is fixed.',
  },
  bot_lacks_manage_roles: {
    title: 'This join page is not ready',
    message: 'Tierlink’s bot in this server lacks the Manage Roles permission, so it could not give you your roles.',
    next: 'Let the creator know: /doctor in their server says how to fix it. Try again once it is fixed.',
  },
};

/** `GET /join/<slug>`. */
export function joinPageView(place: JoinPlace, readiness: JoinReadiness, startHref: string): JoinPageView {
  return {
    campaignName: place.campaignName,
    guildName: place.guildName,
    tiers: tierLines(place.tiers),
    openToEveryone: place.openToEveryone,
    startHref: readiness === 'ready' ? startHref : null,
    notReady: readiness === 'ready' ? null : NOT_READY[readiness],
    pledgeUrl: place.pledgeUrl,
  };
}

/** The page after joining, from what the join did in the server. */
export function joinResultView(done: Joined, tierTitle: (campaignId: string, tierId: string) => string): JoinResultView {
  const { outcome, place } = done;
  const applied = outcome.result?.applied ?? [];
  const added = new Set(applied.filter((c) => c.op === 'add').map((c) => c.roleId));
  const failed = new Set((outcome.result?.failed ?? []).map((f) => f.change.roleId));
  const granted: RoleLine[] = [];
  const kept: RoleLine[] = [];
  for (const grant of outcome.desired.grants.values()) {
    if (failed.has(grant.roleId) || outcome.plan.blocked.some((b) => b.roleId === grant.roleId)) continue;
    (added.has(grant.roleId) ? granted : kept).push({ name: grant.roleName, reason: grant.reason });
  }
  const problems = problemLines(outcome);
  const { discordAccount: a } = done;
  return {
    outcome: done.kind,
    campaignName: place.campaignName,
    guildName: place.guildName,
    discordAccount: { name: a.globalName ?? a.username ?? `Discord user ${a.userId}`, username: a.username },
    serverUrl: `https://discord.com/channels/${place.guildId}`,
    tiers: outcome.entitlements.flatMap((e) => e.tierIds.map((id) => tierTitle(e.campaignId, id))),
    granted,
    kept,
    notGranted: outcome.desired.notes.filter((n) => n.roleName !== null).map((n) => ({ name: n.roleName!, reason: n.reason })),
    problems,
    joinUrl: place.link.url,
  };
}

type Refusal = Omit<JoinRefusalView, 'campaignName' | 'guildName' | 'tiers' | 'joinUrl' | 'action'> & {
  action?: JoinRefusalView['action'];
  tiers?: JoinTierLine[];
};

function refusal(place: JoinPlace | null, view: Refusal): JoinRefusalView {
  const joinUrl = place?.link.url ?? null;
  return {
    campaignName: place?.campaignName ?? null,
    guildName: place?.guildName ?? null,
    joinUrl,
    tiers: [],
    action: joinUrl ? { label: 'Open the join page again', href: joinUrl } : null,
    ...view,
  };
}

const server = (place: JoinPlace | null) => place?.guildName ?? 'the server';

/** Someone whose tiers give no role in the server, on a join page that lets only patrons in. */
export function notPatronView(place: JoinPlace, preview: JoinPreview): JoinRefusalView {
  const best = bestEntitlement(preview.planned.entitlements);
  const standing =
    best === null || best.kind === 'none'
      ? 'this Patreon account has no membership of the campaign'
      : best.kind === 'active' || best.kind === 'grace'
        ? 'your tier comes with no role in this server'
        : best.reason;
  return refusal(place, {
    status: 403,
    tone: 'info',
    title: 'Joining is for patrons',
    message: `${server(place)} is for patrons of ${place.campaignName} whose tier comes with a role here; Patreon says ${standing}. Nothing was changed.`,
    next: 'Become a patron on Patreon, then open this join page again. Pledged with a different Patreon account? Open it again and sign in with that one.',
    action: place.pledgeUrl ? { label: 'Become a patron', href: place.pledgeUrl } : null,
    tiers: tierLines(place.tiers),
  });
}

/** Discord did not add the person, by its code. */
const ADD_REFUSALS: Record<MemberAddProblemCode, (place: JoinPlace | null) => Refusal> = {
  banned: (p) => ({
    status: 403,
    tone: 'error',
    title: `You can’t join ${server(p)}`,
    message: 'You are banned from this server, so Tierlink cannot add you. Your Patreon membership is linked to your Discord account.',
    next: 'If you think this is a mistake, contact the creator on Patreon.',
    action: null,
  }),
  server_full: (p) => ({
    status: 409,
    tone: 'warning',
    title: `${server(p)} is full`,
    message: 'The server has as many members as Discord allows, so Tierlink could not add you. Nothing else changed.',
    next: 'Let the creator know, and open this join page again later.',
  }),
  bot_lacks_permissions: (p) => ({
    status: 503,
    tone: 'warning',
    title: 'This join page is not ready',
    message: `Tierlink’s bot in ${server(p)} lacks a permission Discord requires to add people with their roles (Create Invite, Manage Roles), so you were not added.`,
    next: 'Let the creator know: /doctor in their server says how to fix it. Then open this join page again.',
  }),
  bot_not_in_server: () => ({ ...NOT_READY.bot_not_in_server, status: 503, tone: 'warning' }),
  token_refused: () => ({
    status: 400,
    tone: 'warning',
    title: 'Discord did not let Tierlink add you',
    message: 'The permission to add you to the server was left out on Discord’s page, or was withdrawn. Nothing was changed.',
    next: 'Open this join page again and choose Authorize on Discord’s page without changing what it asks for.',
  }),
  too_many_servers: () => ({
    status: 409,
    tone: 'warning',
    title: 'You are in too many servers',
    message: 'Your Discord account is in as many servers as Discord allows, so it cannot join another one.',
    next: 'Leave a server you no longer use, then open this join page again.',
  }),
  joining_limited: () => ({
    status: 403,
    tone: 'warning',
    title: 'Discord limited joining servers',
    message: 'Discord has limited how your account joins new servers for now, so Tierlink could not add you.',
    next: 'Try again later, or join with an invite from the creator.',
  }),
  unavailable: () => ({
    status: 502,
    tone: 'warning',
    title: 'We couldn’t reach Discord',
    message: 'Discord did not answer in time, so you were not added. Nothing else changed.',
    next: 'Wait a minute, then open this join page again.',
  }),
};

/** The page of a join that ended without joining. */
export function joinRefusalView(
  completion: Exclude<JoinCompletion, Joined> | { kind: 'other_browser' | 'service_error' | 'service_denied'; place: JoinPlace | null },
): JoinRefusalView {
  switch (completion.kind) {
    case 'not_patron':
      return notPatronView(completion.place, completion.preview);
    case 'refused':
      return refusal(completion.place, ADD_REFUSALS[completion.problem.code](completion.place));
    case 'denied':
      return refusal(completion.place, {
        status: 200,
        tone: 'info',
        title: 'You were not added',
        message: 'You chose not to give Tierlink permission on Discord’s page, so nothing changed.',
        next: 'Changed your mind? Open this join page again and choose Authorize.',
      });
    case 'service_denied':
      return refusal(completion.place, {
        status: 200,
        tone: 'info',
        title: 'You were not added',
        message: 'You chose not to share your Patreon membership, so Tierlink could not check it. Nothing changed.',
        next: 'Changed your mind? Open this join page again and choose Allow.',
      });
    case 'other_browser':
      return refusal(completion.place, {
        status: 403,
        tone: 'error',
        title: 'Start again from the join page',
        message:
          'This page was opened in a different browser from the one that opened the join page, the sign-in was passed on by someone else, or this browser did not keep Tierlink’s cookie. To keep your accounts safe, nothing was linked or changed.',
        next: 'Open the join page yourself, in this browser.',
      });
    case 'bad_state':
      return refusal(completion.place, {
        status: 400,
        tone: 'error',
        title: 'This sign-in can’t be used',
        message:
          'It was already used, took longer than 15 minutes, or did not come from Tierlink. To keep your accounts safe, nothing was changed.',
        next: completion.place ? 'Open the join page again.' : 'Open the join page from the creator’s Patreon page again.',
      });
    case 'discord_error':
      return refusal(completion.place, ADD_REFUSALS.unavailable(completion.place));
    case 'service_error':
      return refusal(completion.place, {
        status: 502,
        tone: 'warning',
        title: 'We couldn’t reach Patreon',
        message: 'Patreon did not answer in time, so Tierlink could not check your membership. Nothing was changed.',
        next: 'Wait a minute, then open this join page again.',
      });
  }
}

/** `GET /join/<slug>` for an address that leads to no server. */
export function unknownJoinPageView(): JoinRefusalView {
  return refusal(null, {
    status: 404,
    tone: 'info',
    title: 'No such join page',
    message: 'This address does not lead to a server’s join page. It may have been typed wrong, or the creator changed it.',
    next: 'Open the join link on the creator’s Patreon page again.',
  });
}
