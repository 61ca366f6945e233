import { type Locale, formatDate } from '../../../../core/i18n';
import { localDay } from './local-time';
import { html, prose, type HtmlValue, type SafeHtml } from './html';
import { context, hero, icons, mention, nextSteps, notice, renderDocument, section, type Step, type Tone } from './layout';
import { type PageSpeech, richOf, speech } from './speech';
import type { LinkResultView, RoleLine } from './views';

/**
 * The page a patron lands on after authorizing from `/link`. Every standing gets a headline and a
 * next step, so nobody is left wondering why a role is (or is not) there. In the reader's language
 * (`said`); no language switch: the page ends a one-time sign-in and cannot be loaded again.
 */
export function renderLinkResult(view: LinkResultView, said: PageSpeech = speech()): string {
  const { t, locale } = said;
  const rich = richOf(t);
  const copy = linkResultCopy(view, said);
  const server = view.guildName ?? t('page.theServer');

  const roleRows = [
    ...view.granted.map((r) => roleRow(r, 'added', t('page.added'))),
    ...view.kept.map((r) => roleRow(r, 'kept', t('page.kept'))),
    ...view.removed.map((r) => roleRow(r, 'removed', t('page.removed'))),
    ...view.notGranted.map((r) => roleRow(r, 'skipped', t('page.notIncluded'))),
  ];

  const main = [
    hero({
      tone: copy.tone,
      context: context([
        { icon: icons.star, label: t('page.campaign'), name: view.campaignName },
        { icon: icons.server, label: t('page.server'), name: view.guildName },
        { icon: icons.user, label: t('page.account'), name: accountName(view) },
      ]),
      headline: copy.headline,
      lead: copy.lead,
      standing: view.standingText,
    }),
    nextSteps(copy.steps, null, t),
    copy.aside && notice(copy.aside),
    notice(rich('linkPage.linkedTo', { account: accountName(view) })),
    view.movedFromAnotherAccount && notice(t('linkPage.moved')),
    view.tiers.length > 0 &&
      section({
        id: 'tiers',
        title: t('page.yourTier', { count: view.tiers.length }),
        body: html`<ul class="chips">${view.tiers.map((tier) => html`<li class="chip">${icons.star}${tier}</li>`)}</ul>`,
      }),
    roleRows.length > 0 &&
      section({
        id: 'roles',
        title: view.guildName ? t('page.yourRolesIn', { server: view.guildName }) : t('page.yourRoles'),
        body: html`<ul class="rows">${roleRows}</ul>`,
      }),
    view.problems.length > 0 &&
      section({
        id: 'problems',
        title: t('page.waiting'),
        intro: t('linkPage.problemsIntro', { count: view.problems.length, server }),
        body: html`<ul class="rows">${view.problems.map(
          (p) =>
            html`<li class="row"><div class="row-main"><span class="row-name">${mention(p.name)}</span> <span class="pill warn">${t('page.onHold')}</span></div><p class="row-text">${prose(p.problem)}</p></li>`,
        )}</ul>`,
      }),
  ];

  return renderDocument({
    title: copy.headline,
    locale,
    tone: copy.tone,
    main,
    footer: [t('linkPage.footer'), rich('linkPage.footerUnlink')],
  });
}

/** "Ada L. (@ada)", or the username alone when it is the only name. */
function accountName(view: LinkResultView): string {
  const { name, username } = view.discordAccount;
  return username && username !== name ? `${name} (@${username})` : name;
}

interface LinkCopy {
  tone: Tone;
  headline: string;
  lead: HtmlValue;
  steps: Step[];
  /** A side note under the next step. */
  aside?: SafeHtml;
}

function linkResultCopy(view: LinkResultView, { t, locale }: PageSpeech): LinkCopy {
  const rich = richOf(t);
  const server = view.guildName ?? t('page.theServer');
  const hasRoles = view.granted.length + view.kept.length > 0;
  const pledge = (label: string): Step['action'] => (view.pledgeUrl ? { label, href: view.pledgeUrl } : null);
  const joinStep: Step = view.pending
    ? { text: t('linkPage.rules', { server }), detail: t('linkPage.rulesDetail') }
    : { text: t('linkPage.join', { server }), detail: rich('linkPage.joinDetail') };
  const count = view.problems.length;
  const problemStep: Step = { text: t('linkPage.problemStep', { count }), detail: t('linkPage.problemDetail', { count }) };
  const thanks = rich('linkPage.thanks', { patron: view.patronName });
  const pledgeAgain = (text: string, action: Step['action']): Step => ({
    text,
    detail: t(view.inGuild ? 'linkPage.pledgeDetail' : 'linkPage.pledgeDetailJoin'),
    action,
  });

  switch (view.standing) {
    case 'active': {
      if (!view.inGuild)
        return { tone: 'info', headline: t(view.pending ? 'linkPage.headRules' : 'linkPage.headJoin'), lead: thanks, steps: [joinStep] };
      if (count > 0 && !hasRoles) return { tone: 'warning', headline: t('linkPage.headOnHoldAll'), lead: thanks, steps: [problemStep] };
      const steps: Step[] = hasRoles
        ? [{ text: t('linkPage.backToDiscord'), detail: t('linkPage.follows') }]
        : view.tiers.length === 0
          ? [{ text: t('linkPage.noTier', { server }), detail: t('linkPage.noTierDetail') }]
          : [{ text: t('linkPage.tierNoRole', { server }), detail: t('linkPage.tierNoRoleDetail') }];
      if (count > 0) steps.push(problemStep);
      // The count and its noun stay on one line.
      const headline =
        count > 0
          ? t('linkPage.headOnHold', { count }).replace(/(\d) /, '$1\u00a0')
          : hasRoles
            ? t('linkPage.headAllSet')
            : t('linkPage.headLinked');
      return { tone: 'success', headline, lead: thanks, steps };
    }
    case 'grace': {
      // English reads the day from the planner's sentence, as it always did; another language from the view.
      const until = locale !== 'en' && view.graceEndsAt ? formatDate(locale, view.graceEndsAt, 'UTC') : lastDate(view.standingText, locale);
      const steps: Step[] = [
        {
          // The day is the UTC one; the browser writes the reader's own (src/edges/inbound/web/pages/local-time.ts).
          text: until
            ? rich('linkPage.graceUntil', { date: view.graceEndsAt ? localDay(view.graceEndsAt, until) : until })
            : t('linkPage.graceSoon'),
          detail: t('linkPage.graceDetail'),
          action: pledge(t('linkPage.openPatreon')),
        },
      ];
      if (!view.inGuild) steps.push(joinStep);
      if (count > 0) steps.push(problemStep);
      return { tone: 'warning', headline: t('linkPage.headGrace'), lead: rich('linkPage.graceLead', { patron: view.patronName }), steps };
    }
    case 'lapsed':
      return {
        tone: 'error',
        headline: t('linkPage.headLapsed'),
        lead: rich(view.removed.length > 0 ? 'linkPage.lapsedLeadRemoved' : 'linkPage.lapsedLead', { patron: view.patronName }),
        steps: [{ text: t('linkPage.lapsedStep'), detail: rich('linkPage.lapsedDetail'), action: pledge(t('linkPage.lapsedAction')) }],
      };
    case 'former':
      return {
        tone: 'info',
        headline: t('linkPage.headFormer'),
        lead: rich('linkPage.formerLead', { patron: view.patronName }),
        steps: [pledgeAgain(t('linkPage.formerStep'), pledge(t('linkPage.formerAction')))],
      };
    case 'follower':
      return {
        tone: 'info',
        headline: t('linkPage.headFollower'),
        lead: rich('linkPage.followerLead', { patron: view.patronName, server }),
        steps: [pledgeAgain(t('linkPage.followerStep'), pledge(t('linkPage.followerAction')))],
      };
    case 'none':
      return {
        tone: 'info',
        headline: t('linkPage.headNone'),
        lead: rich('linkPage.noneLead', { patron: view.patronName }),
        steps: [pledgeAgain(t('linkPage.noneStep'), pledge(t('linkPage.noneAction')))],
        aside: rich('linkPage.noneAside'),
      };
  }
}

function roleRow(role: RoleLine, kind: string, label: string): SafeHtml {
  return html`<li class="row"><div class="row-main"><span class="row-name">${mention(role.name)}</span> <span class="pill ${kind}">${label}</span></div><p class="row-text">${prose(capitalize(role.reason))}</p></li>`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The last calendar day in the standing sentence ("Payment declined on 2026-11-02; roles kept
 * until 2026-11-09" → "November 9, 2026"): the grace period's end, which the view carries only in
 * that sentence (in English; another language's sentence already writes it the language's way).
 */
function lastDate(text: string, locale: Locale): string | null {
  const days = text.match(/\d{4}-\d{2}-\d{2}/g);
  const last = days?.[days.length - 1];
  if (!last) return null;
  const date = new Date(`${last}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return null;
  return formatDate(locale === 'en' ? 'en' : locale, date);
}
