import { html, prose, safeHref, type HtmlValue, type SafeHtml } from './html';
import { context, hero, icons, mention, nextSteps, notice, renderDocument, section, type Step, type Tone } from './layout';
import type { JoinPageView, JoinRefusalView, JoinResultView, JoinTierLine, RoleLine } from './views';

/**
 * The join page (`GET /join/<slug>`), the page after joining, and the pages of a join that did not
 * happen. The same document and parts as the `/link` pages: no script, nothing fetched.
 */

const FOOTER_PRIVACY =
  'Tierlink sees who you are on Patreon and Discord and your pledge. Discord’s permission to add you is used once and withdrawn right after: nothing that can act as you is kept.';

function tierRows(tiers: readonly JoinTierLine[]): SafeHtml {
  return html`<ul class="rows">${tiers.map(
    (t) =>
      html`<li class="row"><div class="row-main"><span class="row-name">${t.title}</span> <span class="row-meta">${t.price}</span></div><p class="row-text">${t.roles.map(
        (r, i) => html`${i > 0 ? ' ' : ''}${mention(r)}`,
      )}</p></li>`,
  )}</ul>`;
}

function tiersSection(tiers: readonly JoinTierLine[], openToEveryone: boolean, guildName: string | null): SafeHtml | null {
  if (tiers.length === 0) return null;
  return section({
    id: 'tiers',
    title: openToEveryone ? 'Tiers and their roles' : 'Tiers that come with access',
    intro: openToEveryone
      ? `Everyone may join ${guildName ?? 'the server'}; patrons of these tiers get their roles on the way in.`
      : `A pledge to one of these tiers lets you into ${guildName ?? 'the server'} with its roles.`,
    body: tierRows(tiers),
  });
}

/** `GET /join/<slug>`: the campaign and the server, the two sign-ins, one button. */
export function renderJoinPage(view: JoinPageView): string {
  const server = view.guildName ?? 'the Discord server';
  const where = context([
    { icon: icons.star, label: 'Campaign', name: view.campaignName },
    { icon: icons.server, label: 'Discord server', name: view.guildName },
  ]);
  if (view.notReady || !view.startHref) {
    const notReady = view.notReady ?? {
      title: 'This join page is not ready',
      message: 'It cannot add anyone now.',
      next: 'Try again later.',
    };
    return renderDocument({
      title: notReady.title,
      tone: 'warning',
      main: [
        hero({ tone: 'warning', context: where, eyebrow: 'Join page', headline: notReady.title, lead: prose(notReady.message) }),
        nextSteps([{ text: prose(notReady.next) }]),
      ],
      footer: ['You can close this tab. Nothing was changed.'],
    });
  }
  const lead = view.openToEveryone
    ? html`Anyone with a Patreon account can join <strong>${server}</strong>. Patrons of <strong>${view.campaignName}</strong> get their tier roles on the way in.`
    : html`Patrons of <strong>${view.campaignName}</strong> get into <strong>${server}</strong> with their tier roles, in one go.`;
  const steps = [
    { text: 'Sign in with Patreon', detail: `Tierlink checks your membership of ${view.campaignName}.` },
    { text: 'Sign in with Discord', detail: `Tierlink adds you to ${server} with the roles of your tier.` },
  ];
  const start = html`<section class="next" data-next-step aria-labelledby="next-title">
<h2 class="next-title" id="next-title">${icons.arrowRight}How it works</h2>
<ol class="steps numbered">${steps.map((s) => html`<li class="step"><p class="step-text">${s.text}</p><p class="step-detail">${s.detail}</p></li>`)}</ol>
<a class="button" href="${view.startHref}">Join ${server}${icons.arrowRight}</a>
</section>`;
  return renderDocument({
    title: `Join ${server}`,
    tone: 'info',
    main: [
      hero({
        tone: 'info',
        context: where,
        eyebrow: view.openToEveryone ? 'Join the server' : 'For patrons',
        headline: `Join ${server}`,
        lead,
      }),
      start,
      tiersSection(view.tiers, view.openToEveryone, view.guildName),
      !view.openToEveryone &&
        view.pledgeUrl &&
        notice(
          html`Not a patron yet? <a href="${safeHref(view.pledgeUrl) ?? '#'}" rel="noopener noreferrer">Become one on Patreon</a>, then come back here.`,
        ),
    ],
    footer: [FOOTER_PRIVACY],
  });
}

/** The page after joining: who joined, with which roles, and the way into the server. */
export function renderJoinResult(view: JoinResultView): string {
  const server = view.guildName ?? 'the Discord server';
  const account = accountName(view.discordAccount);
  const added = view.outcome === 'added';
  const tone: Tone = view.problems.length > 0 ? 'warning' : 'success';
  const headline = added ? `You’re in ${server}` : `You’re already in ${server}`;
  const lead: HtmlValue = added
    ? html`Welcome, <strong>${view.discordAccount.name}</strong>! Tierlink added you to ${server}${view.granted.length > 0 ? ' with your roles' : ''}.`
    : html`Your Patreon membership is linked to <strong>${account}</strong>, and your roles in ${server} are up to date.`;
  const steps: Step[] = [
    {
      text: `Open ${server} in Discord.`,
      detail: 'Your roles follow your pledge from now on: upgrade, downgrade or cancel on Patreon and Discord keeps up.',
      action: { label: `Open ${server}`, href: view.serverUrl },
    },
  ];
  const rows = [
    ...view.granted.map((r) => roleRow(r, 'added', 'Added')),
    ...view.kept.map((r) => roleRow(r, 'kept', 'Kept')),
    ...view.notGranted.map((r) => roleRow(r, 'skipped', 'Not included')),
  ];
  return renderDocument({
    title: headline,
    tone,
    main: [
      hero({
        tone,
        context: context([
          { icon: icons.star, label: 'Campaign', name: view.campaignName },
          { icon: icons.server, label: 'Discord server', name: view.guildName },
          { icon: icons.user, label: 'Discord account', name: account },
        ]),
        headline,
        lead,
      }),
      nextSteps(steps),
      notice(
        html`You joined as the Discord account <strong>${account}</strong>, and your Patreon membership is linked to it. Not you? Sign in to Discord as yourself and <a href="${safeHref(view.joinUrl) ?? '#'}">open the join page again</a>.`,
      ),
      view.tiers.length > 0 &&
        section({
          id: 'tier',
          title: view.tiers.length === 1 ? 'Your tier' : 'Your tiers',
          body: html`<ul class="chips">${view.tiers.map((t) => html`<li class="chip">${icons.star}${t}</li>`)}</ul>`,
        }),
      rows.length > 0 && section({ id: 'roles', title: `Your roles in ${server}`, body: html`<ul class="rows">${rows}</ul>` }),
      view.problems.length > 0 &&
        section({
          id: 'problems',
          title: 'Waiting on the server',
          intro: `${view.problems.length === 1 ? 'This role' : 'These roles'} can’t be given until ${server} is set up right; the server’s owner can see why with /doctor. ${view.problems.length === 1 ? 'It arrives' : 'They arrive'} on its own once fixed.`,
          body: html`<ul class="rows">${view.problems.map(
            (p) =>
              html`<li class="row"><div class="row-main"><span class="row-name">${mention(p.name)}</span> <span class="pill warn">On hold</span></div><p class="row-text">${prose(p.problem)}</p></li>`,
          )}</ul>`,
        }),
    ],
    footer: [FOOTER_PRIVACY, 'You can close this tab.'],
  });
}

/** A join that did not happen: why, what to do next, and for someone who is not a patron the tiers that let people in. */
export function renderJoinRefusal(view: JoinRefusalView): string {
  const label =
    view.status === 403 ? 'Not allowed' : view.status === 400 ? 'Security check' : view.status >= 500 ? 'Temporarily unavailable' : null;
  const steps: Step[] = view.next ? [{ text: prose(view.next), action: view.action }] : [];
  const again =
    view.joinUrl && view.action?.href !== view.joinUrl
      ? notice(html`<a href="${safeHref(view.joinUrl) ?? '#'}">Open the join page again</a> to start over.`)
      : null;
  return renderDocument({
    title: view.title,
    tone: view.tone,
    main: [
      hero({
        tone: view.tone,
        context: context([
          { icon: icons.star, label: 'Campaign', name: view.campaignName },
          { icon: icons.server, label: 'Discord server', name: view.guildName },
        ]),
        eyebrow: label,
        headline: view.title,
        lead: prose(view.message),
      }),
      nextSteps(steps),
      again,
      tiersSection(view.tiers, false, view.guildName),
    ],
    footer: [view.status >= 400 ? `You can close this tab. Error code ${view.status}.` : 'You can close this tab.'],
  });
}

function accountName(account: { name: string; username: string | null }): string {
  return account.username && account.username !== account.name ? `${account.name} (@${account.username})` : account.name;
}

function roleRow(role: RoleLine, kind: string, label: string): SafeHtml {
  const reason = role.reason.charAt(0).toUpperCase() + role.reason.slice(1);
  return html`<li class="row"><div class="row-main"><span class="row-name">${mention(role.name)}</span> <span class="pill ${kind}">${label}</span></div><p class="row-text">${prose(reason)}</p></li>`;
}
