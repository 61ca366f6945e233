import { priceText, pricingOf } from '../../../../core/i18n/price';
import { html, plural, prose, type HtmlValue, type SafeHtml } from './html';
import { command, context, hero, icons, mention, nextSteps, renderDocument, section, type Step, type Tone } from './layout';
import type { ConnectResultView, ConnectTierLine, ProblemLine } from './views';

/** The page a creator lands on after `/connect`: what is connected, what a sync would do, what to fix. */
export function renderConnectResult(view: ConnectResultView): string {
  const server = view.guildName ?? 'your server';
  const problemCount = view.problems.length;
  const webhookFailed = view.webhook.state === 'failed';
  const tone: Tone = problemCount > 0 || webhookFailed || view.dryRun.held ? 'warning' : 'success';
  const headline = problemCount > 0 ? `Connected, with ${plural(problemCount, 'thing')} to fix` : 'Your campaign is connected';

  const main = [
    hero({
      tone,
      context: context([
        { icon: icons.star, label: 'Campaign', name: view.campaignName },
        { icon: icons.server, label: 'Discord server', name: view.guildName },
      ]),
      headline,
      lead: html`Tierlink now keeps the roles in <strong>${server}</strong> in step with the tiers of <strong>${view.campaignName}</strong>.`,
    }),
    nextSteps(connectSteps(view)),
    problemCount > 0 &&
      section({
        id: 'problems',
        title: 'To fix',
        intro: html`Members keep their current roles until these are fixed. Run ${command('/doctor')} to check again.`,
        body: html`<ul class="rows">${view.problems.map(problemRow)}</ul>`,
      }),
    section({
      id: 'plan',
      title: 'What a sync would do',
      intro: html`Nothing has changed yet: ${command('/connect')} only looks.`,
      body: html`<dl class="stats">
${stat(view.dryRun.linkedMembers, view.dryRun.linkedMembers === 1 ? 'linked member' : 'linked members')}
${stat(view.dryRun.adds, view.dryRun.adds === 1 ? 'role to add' : 'roles to add')}
${stat(view.dryRun.removes, view.dryRun.removes === 1 ? 'role to remove' : 'roles to remove')}
</dl>`,
    }),
    view.tiers.length > 0 &&
      section({
        id: 'tiers',
        title: 'Tiers and their roles',
        intro: html`Change which role a tier gives with ${command('/map')} and ${command('/unmap')}.`,
        body: html`<ul class="rows">${view.tiers.map(tierRow)}</ul>`,
      }),
    section({ id: 'webhook', title: 'Live updates', body: webhookLine(view.webhook) }),
  ];

  return renderDocument({
    title: headline,
    tone,
    main,
    footer: [html`Run ${command('/doctor')} in Discord any time to check the setup.`, 'You can close this tab.'],
  });
}

function connectSteps(view: ConnectResultView): Step[] {
  const steps: Step[] = [];
  const { linkedMembers, adds, removes, held } = view.dryRun;
  if (view.problems.length > 0) {
    steps.push({
      text: `Fix the ${plural(view.problems.length, 'problem')} listed below.`,
      detail: html`Each one says how. Then run ${command('/doctor')} in Discord to check.`,
    });
  }
  if (view.webhook.state === 'failed') {
    steps.push({
      text: 'Turn on live updates.',
      detail:
        'Patreon could not be told where to send pledge changes, so roles only catch up in the nightly sync until then. See "Live updates" below.',
    });
  }
  if (held) {
    steps.push({
      text: html`Review the plan with ${command('/sync dry_run:True')} before you apply it.`,
      detail: `A sync now would remove ${plural(removes, 'role')} at once, more than the safety limit allows, so it stops for review instead of acting.`,
    });
  } else if (adds + removes > 0) {
    steps.push({
      text: html`Run ${command('/sync')} in Discord to apply the roles now.`,
      detail: `It adds ${plural(adds, 'role')} and removes ${plural(removes, 'role')} across ${plural(linkedMembers, 'linked member')}. Otherwise the nightly sync does it.`,
    });
  }
  if (linkedMembers === 0) {
    steps.push({
      text: html`Tell your patrons to run ${command('/link')} in Discord.`,
      detail: 'Each patron links once; their roles follow their pledge from then on.',
    });
  } else if (steps.length === 0) {
    steps.push({
      text: 'Nothing to do: every linked member already has the right roles.',
      detail: html`New patrons get theirs when they run ${command('/link')} in Discord.`,
    });
  }
  return steps;
}

function stat(value: number, label: string): SafeHtml {
  return html`<div class="stat"><dt class="stat-label">${label}</dt><dd class="stat-value">${value.toLocaleString('en-US')}</dd></div>`;
}

function tierRow(tier: ConnectTierLine): SafeHtml {
  // As the campaign states it: its currency and how often patrons pay ("€5 per creation", "$10 a month").
  const meta = [
    priceText({ ...(tier.pricing ?? pricingOf(null)), amountCents: tier.amountCents }),
    tier.patronCount === null ? null : plural(tier.patronCount, 'patron'),
  ]
    .filter(Boolean)
    .join(' · ');
  const roles: HtmlValue =
    tier.roles.length > 0
      ? html`<ul class="chips">${tier.roles.map((r) => html`<li>${mention(r)}</li>`)}</ul>`
      : html`<p class="row-text">No role yet. Give it one with ${command('/map')}.</p>`;
  return html`<li class="row"><div class="row-main"><span class="row-name">${tier.title}</span> <span class="row-meta">${meta}</span></div>${roles}</li>`;
}

function problemRow(p: ProblemLine): SafeHtml {
  return html`<li class="row"><div class="row-main"><span class="row-name">${p.name}</span> <span class="pill warn">To fix</span></div><p class="row-text">${prose(p.problem)}</p><p class="row-fix">${icons.wrench}<span>${prose(p.fix)}</span></p></li>`;
}

const WEBHOOK_COPY: Record<ConnectResultView['webhook']['state'], { tone: Tone; title: string; text: string }> = {
  registered: {
    tone: 'success',
    title: 'Live updates are on',
    text: 'Patreon now tells Tierlink about new, changed and ended pledges, so roles change within seconds.',
  },
  'already-registered': {
    tone: 'success',
    title: 'Live updates are on',
    text: 'This campaign already sends pledge changes to Tierlink, so roles change within seconds.',
  },
  'manual-secret': {
    tone: 'success',
    title: 'Live updates use your webhook',
    text: 'Pledge changes arrive through the webhook you registered (PATREON_WEBHOOK_SECRET).',
  },
  failed: { tone: 'warning', title: 'Live updates are off', text: 'Roles still catch up in the nightly sync.' },
};

function webhookLine(webhook: ConnectResultView['webhook']): SafeHtml {
  const copy = WEBHOOK_COPY[webhook.state];
  const icon = copy.tone === 'success' ? icons.bolt : icons.alert;
  return html`<div class="status-line tone-${copy.tone}"><span class="badge">${icon}</span><div><p class="row-name">${copy.title}</p><p class="row-text">${copy.text}${webhook.detail ? html` ${prose(webhook.detail)}` : null}</p></div></div>`;
}
