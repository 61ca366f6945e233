import { formatNumber } from '../../../../core/i18n';
import { priceText, pricingOf } from '../../../../core/i18n/price';
import { html, prose, type HtmlValue, type SafeHtml } from './html';
import { context, hero, icons, mention, nextSteps, renderDocument, section, type Step, type Tone } from './layout';
import { type PageSpeech, richOf, speech } from './speech';
import type { ConnectResultView, ConnectTierLine, ProblemLine } from './views';

/**
 * The page a creator lands on after `/connect`: what is connected, what a sync would do, what to
 * fix. In the reader's language (`said`; the view's problems are already in it); no language
 * switch: the page ends a one-time sign-in and cannot be loaded again.
 */
export function renderConnectResult(view: ConnectResultView, said: PageSpeech = speech()): string {
  const { t, locale } = said;
  const rich = richOf(t);
  const server = view.guildName ?? t('connectPage.yourServer');
  const problemCount = view.problems.length;
  const webhookFailed = view.webhook.state === 'failed';
  const tone: Tone = problemCount > 0 || webhookFailed || view.dryRun.held ? 'warning' : 'success';
  const headline = problemCount > 0 ? t('connectPage.connectedToFix', { count: problemCount }) : t('connectPage.connected');
  const stat = (value: number, key: 'connectPage.statLinked' | 'connectPage.statAdds' | 'connectPage.statRemoves'): SafeHtml =>
    html`<div class="stat"><dt class="stat-label">${t(key, { count: value })}</dt><dd class="stat-value">${formatNumber(locale, value)}</dd></div>`;

  const main = [
    hero({
      tone,
      context: context([
        { icon: icons.star, label: t('page.campaign'), name: view.campaignName },
        { icon: icons.server, label: t('page.server'), name: view.guildName },
      ]),
      headline,
      lead: rich('connectPage.lead', { server, campaign: view.campaignName }),
    }),
    nextSteps(connectSteps(view, said), null, t),
    problemCount > 0 &&
      section({
        id: 'problems',
        title: t('connectPage.toFix'),
        intro: rich('connectPage.toFixIntro'),
        body: html`<ul class="rows">${view.problems.map((p) => problemRow(p, said))}</ul>`,
      }),
    section({
      id: 'plan',
      title: t('connectPage.plan'),
      intro: rich('connectPage.planIntro'),
      body: html`<dl class="stats">
${stat(view.dryRun.linkedMembers, 'connectPage.statLinked')}
${stat(view.dryRun.adds, 'connectPage.statAdds')}
${stat(view.dryRun.removes, 'connectPage.statRemoves')}
</dl>`,
    }),
    view.tiers.length > 0 &&
      section({
        id: 'tiers',
        title: t('connectPage.tiers'),
        intro: rich('connectPage.tiersIntro'),
        body: html`<ul class="rows">${view.tiers.map((tier) => tierRow(tier, said))}</ul>`,
      }),
    section({ id: 'webhook', title: t('connectPage.liveUpdates'), body: webhookLine(view.webhook, said) }),
  ];

  return renderDocument({
    title: headline,
    locale,
    tone,
    main,
    footer: [rich('connectPage.footer'), t('page.close')],
  });
}

function connectSteps(view: ConnectResultView, { t }: PageSpeech): Step[] {
  const rich = richOf(t);
  const steps: Step[] = [];
  const { linkedMembers, adds, removes, held } = view.dryRun;
  if (view.problems.length > 0) {
    steps.push({ text: t('connectPage.fixSteps', { count: view.problems.length }), detail: rich('connectPage.fixStepsDetail') });
  }
  if (view.webhook.state === 'failed') {
    steps.push({ text: t('connectPage.turnOnLive'), detail: t('connectPage.turnOnLiveDetail') });
  }
  if (held) {
    steps.push({ text: rich('connectPage.review'), detail: t('connectPage.reviewDetail', { count: removes }) });
  } else if (adds + removes > 0) {
    steps.push({
      text: rich('connectPage.apply'),
      detail: t('connectPage.applyDetail', {
        adds: t('connectPage.roles', { count: adds }),
        removes: t('connectPage.roles', { count: removes }),
        members: t('connectPage.linkedMembers', { count: linkedMembers }),
      }),
    });
  }
  if (linkedMembers === 0) {
    steps.push({ text: rich('connectPage.tellPatrons'), detail: t('connectPage.tellPatronsDetail') });
  } else if (steps.length === 0) {
    steps.push({ text: t('connectPage.nothingToDo'), detail: rich('connectPage.nothingToDoDetail') });
  }
  return steps;
}

function tierRow(tier: ConnectTierLine, { t }: PageSpeech): SafeHtml {
  // As the campaign states it, in the reader's language: "€5 per creation", "5 € pro Werk", "$10 a month".
  const meta = [
    priceText({ ...(tier.pricing ?? pricingOf(null)), amountCents: tier.amountCents }, t),
    tier.patronCount === null ? null : t('connectPage.patrons', { count: tier.patronCount }),
  ]
    .filter(Boolean)
    .join(' · ');
  const roles: HtmlValue =
    tier.roles.length > 0
      ? html`<ul class="chips">${tier.roles.map((r) => html`<li>${mention(r)}</li>`)}</ul>`
      : html`<p class="row-text">${richOf(t)('connectPage.noRoleYet')}</p>`;
  return html`<li class="row"><div class="row-main"><span class="row-name">${tier.title}</span> <span class="row-meta">${meta}</span></div>${roles}</li>`;
}

function problemRow(p: ProblemLine, { t }: PageSpeech): SafeHtml {
  return html`<li class="row"><div class="row-main"><span class="row-name">${p.name}</span> <span class="pill warn">${t('connectPage.toFix')}</span></div><p class="row-text">${prose(p.problem)}</p><p class="row-fix">${icons.wrench}<span>${prose(p.fix)}</span></p></li>`;
}

type WebhookState = ConnectResultView['webhook']['state'];

const WEBHOOK_COPY: Record<
  WebhookState,
  {
    tone: Tone;
    title: 'connectPage.liveOn' | 'connectPage.liveManual' | 'connectPage.liveOff';
    text: 'connectPage.liveRegistered' | 'connectPage.liveAlready' | 'connectPage.liveManualText' | 'connectPage.liveOffText';
  }
> = {
  registered: { tone: 'success', title: 'connectPage.liveOn', text: 'connectPage.liveRegistered' },
  'already-registered': { tone: 'success', title: 'connectPage.liveOn', text: 'connectPage.liveAlready' },
  'manual-secret': { tone: 'success', title: 'connectPage.liveManual', text: 'connectPage.liveManualText' },
  failed: { tone: 'warning', title: 'connectPage.liveOff', text: 'connectPage.liveOffText' },
};

/**
 * The webhook's state. Its detail is the registration's own English note (a webhook's id and
 * address, or what Patreon answered): English shows it as it is; another language shows only a
 * failure's, inside a translated sentence, since the others are only ids and addresses.
 */
function webhookLine(webhook: ConnectResultView['webhook'], { t }: PageSpeech): SafeHtml {
  const copy = WEBHOOK_COPY[webhook.state];
  const icon = copy.tone === 'success' ? icons.bolt : icons.alert;
  const detail =
    webhook.detail === null
      ? null
      : t.locale === 'en'
        ? webhook.detail
        : webhook.state === 'failed'
          ? t('connectPage.liveAnswer', { detail: webhook.detail })
          : null;
  return html`<div class="status-line tone-${copy.tone}"><span class="badge">${icon}</span><div><p class="row-name">${t(copy.title)}</p><p class="row-text">${t(copy.text)}${detail ? html` ${prose(detail)}` : null}</p></div></div>`;
}
