import type { Locale } from '../../../../core/i18n';
import { html, prose, safeHref, type HtmlValue, type SafeHtml } from './html';
import { context, hero, icons, mention, nextSteps, notice, renderDocument, section, type Step, type Tone } from './layout';
import { type PageSpeech, richOf, speech } from './speech';
import type { JoinPageView, JoinRefusalView, JoinResultView, JoinTierLine, RoleLine } from './views';

/**
 * The join page (`GET /join/<slug>`), the page after joining, and the pages of a join that did not
 * happen. The same document and parts as the `/link` pages: no script, nothing fetched. Each in
 * the reader's language (`said`); `languages` puts the switch on pages that may be loaded again.
 */

type Languages = ((locale: Locale) => string) | null;

function tierRows(tiers: readonly JoinTierLine[]): SafeHtml {
  return html`<ul class="rows">${tiers.map(
    (t) =>
      html`<li class="row"><div class="row-main"><span class="row-name">${t.title}</span> <span class="row-meta">${t.price}</span></div><p class="row-text">${t.roles.map(
        (r, i) => html`${i > 0 ? ' ' : ''}${mention(r)}`,
      )}</p></li>`,
  )}</ul>`;
}

function tiersSection(
  tiers: readonly JoinTierLine[],
  openToEveryone: boolean,
  guildName: string | null,
  { t }: PageSpeech,
): SafeHtml | null {
  if (tiers.length === 0) return null;
  const server = guildName ?? t('join.theServer');
  return section({
    id: 'tiers',
    title: openToEveryone ? t('join.tiersOpen') : t('join.tiersPatrons'),
    intro: openToEveryone ? t('join.tiersOpenIntro', { server }) : t('join.tiersPatronsIntro', { server }),
    body: tierRows(tiers),
  });
}

const where = (view: { campaignName: string | null; guildName: string | null }, { t }: PageSpeech) =>
  context([
    { icon: icons.star, label: t('page.campaign'), name: view.campaignName },
    { icon: icons.server, label: t('page.server'), name: view.guildName },
  ]);

/** `GET /join/<slug>`: the campaign and the server, the two sign-ins, one button. */
export function renderJoinPage(view: JoinPageView, said: PageSpeech = speech(), languages: Languages = null): string {
  const { t, locale } = said;
  const rich = richOf(t);
  const server = view.guildName ?? t('page.theServer');
  if (view.notReady || !view.startHref) {
    const notReady = view.notReady ?? { title: t('join.notReadyTitle'), message: t('join.notReadyMessage'), next: t('join.tryLater') };
    return renderDocument({
      title: notReady.title,
      locale,
      languages,
      tone: 'warning',
      main: [
        hero({
          tone: 'warning',
          context: where(view, said),
          eyebrow: t('join.eyebrowPage'),
          headline: notReady.title,
          lead: prose(notReady.message),
        }),
        nextSteps([{ text: prose(notReady.next) }], null, t),
      ],
      footer: [t('page.closeNothingChanged')],
    });
  }
  const lead = view.openToEveryone
    ? rich('join.leadOpen', { server, campaign: view.campaignName })
    : rich('join.leadPatrons', { server, campaign: view.campaignName });
  const steps = [
    { text: t('join.stepPatreon'), detail: t('join.stepPatreonDetail', { campaign: view.campaignName }) },
    { text: t('join.stepDiscord'), detail: t('join.stepDiscordDetail', { server }) },
  ];
  const start = html`<section class="next" data-next-step aria-labelledby="next-title">
<h2 class="next-title" id="next-title">${icons.arrowRight}${t('join.howItWorks')}</h2>
<ol class="steps numbered">${steps.map((s) => html`<li class="step"><p class="step-text">${s.text}</p><p class="step-detail">${s.detail}</p></li>`)}</ol>
<a class="button" href="${view.startHref}">${t('join.button', { server })}${icons.arrowRight}</a>
</section>`;
  return renderDocument({
    title: t('join.button', { server }),
    locale,
    languages,
    tone: 'info',
    main: [
      hero({
        tone: 'info',
        context: where(view, said),
        eyebrow: view.openToEveryone ? t('join.eyebrowOpen') : t('join.eyebrowPatrons'),
        headline: t('join.button', { server }),
        lead,
      }),
      start,
      tiersSection(view.tiers, view.openToEveryone, view.guildName, said),
      !view.openToEveryone && view.pledgeUrl && notice(rich('join.notPatronYet', { href: safeHref(view.pledgeUrl) ?? '#' })),
    ],
    footer: [t('join.privacy')],
  });
}

/** The page after joining: who joined, with which roles, and the way into the server. */
export function renderJoinResult(view: JoinResultView, said: PageSpeech = speech()): string {
  const { t, locale } = said;
  const rich = richOf(t);
  const server = view.guildName ?? t('page.theServer');
  const account = accountName(view.discordAccount);
  const added = view.outcome === 'added';
  const pending = view.outcome === 'pending';
  const tone: Tone = view.problems.length > 0 ? 'warning' : pending ? 'info' : 'success';
  const headline = pending
    ? t('join.headPending', { server })
    : added
      ? t('join.headAdded', { server })
      : t('join.headAlready', { server });
  const lead: HtmlValue = pending
    ? rich('join.leadPending', { name: view.discordAccount.name, server })
    : added
      ? rich(view.granted.length > 0 ? 'join.leadAddedRoles' : 'join.leadAdded', { name: view.discordAccount.name, server })
      : rich('join.leadAlready', { account, server });
  const steps: Step[] = [
    {
      text: t(pending ? 'join.openRules' : 'join.open', { server }),
      detail: t(pending ? 'join.openRulesDetail' : 'join.openDetail'),
      action: { label: t('join.openAction', { server }), href: view.serverUrl },
    },
  ];
  const rows = [
    ...view.waiting.map((r) => roleRow(r, 'kept', t('page.afterRules'))),
    ...view.granted.map((r) => roleRow(r, 'added', t('page.added'))),
    ...view.kept.map((r) => roleRow(r, 'kept', t('page.kept'))),
    ...view.notGranted.map((r) => roleRow(r, 'skipped', t('page.notIncluded'))),
  ];
  return renderDocument({
    title: headline,
    locale,
    tone,
    main: [
      hero({
        tone,
        context: context([
          { icon: icons.star, label: t('page.campaign'), name: view.campaignName },
          { icon: icons.server, label: t('page.server'), name: view.guildName },
          { icon: icons.user, label: t('page.account'), name: account },
        ]),
        headline,
        lead,
      }),
      nextSteps(steps, null, t),
      notice(rich('join.joinedAs', { account, href: safeHref(view.joinUrl) ?? '#' })),
      view.tiers.length > 0 &&
        section({
          id: 'tier',
          title: t('page.yourTier', { count: view.tiers.length }),
          body: html`<ul class="chips">${view.tiers.map((tier) => html`<li class="chip">${icons.star}${tier}</li>`)}</ul>`,
        }),
      rows.length > 0 && section({ id: 'roles', title: t('page.yourRolesIn', { server }), body: html`<ul class="rows">${rows}</ul>` }),
      view.problems.length > 0 &&
        section({
          id: 'problems',
          title: t('page.waiting'),
          intro: t('join.problemsIntro', { count: view.problems.length, server }),
          body: html`<ul class="rows">${view.problems.map(
            (p) =>
              html`<li class="row"><div class="row-main"><span class="row-name">${mention(p.name)}</span> <span class="pill warn">${t('page.onHold')}</span></div><p class="row-text">${prose(p.problem)}</p></li>`,
          )}</ul>`,
        }),
    ],
    footer: [t('join.privacy'), t('page.close')],
  });
}

/** A join that did not happen: why, what to do next, and for someone who is not a patron the tiers that let people in. */
export function renderJoinRefusal(view: JoinRefusalView, said: PageSpeech = speech(), languages: Languages = null): string {
  const { t, locale } = said;
  const label = view.status === 403 ? t('label.403') : view.status === 400 ? t('label.400') : view.status >= 500 ? t('label.503') : null;
  const steps: Step[] = view.next ? [{ text: prose(view.next), action: view.action }] : [];
  const again =
    view.joinUrl && view.action?.href !== view.joinUrl ? notice(richOf(t)('join.again', { href: safeHref(view.joinUrl) ?? '#' })) : null;
  return renderDocument({
    title: view.title,
    locale,
    languages,
    tone: view.tone,
    main: [
      hero({ tone: view.tone, context: where(view, said), eyebrow: label, headline: view.title, lead: prose(view.message) }),
      nextSteps(steps, null, t),
      again,
      tiersSection(view.tiers, false, view.guildName, said),
    ],
    footer: [view.status >= 400 ? t('page.closeCode', { status: view.status }) : t('page.close')],
  });
}

function accountName(account: { name: string; username: string | null }): string {
  return account.username && account.username !== account.name ? `${account.name} (@${account.username})` : account.name;
}

function roleRow(role: RoleLine, kind: string, label: string): SafeHtml {
  const reason = role.reason.charAt(0).toUpperCase() + role.reason.slice(1);
  return html`<li class="row"><div class="row-main"><span class="row-name">${mention(role.name)}</span> <span class="pill ${kind}">${label}</span></div><p class="row-text">${prose(reason)}</p></li>`;
}
