import { html, plural, safeHref, type SafeHtml } from './html';
import { command, context, hero, icons, nextSteps, renderDocument, section } from './layout';
import type { ChooseCampaignView } from './views';

type Choice = ChooseCampaignView['choices'][number];

/** The campaign chooser, for a creator with several campaigns and no PATREON_CAMPAIGN_ID. */
export function renderChooseCampaign(view: ChooseCampaignView): string {
  const server = view.guildName ?? 'this server';
  const where = context([
    { icon: icons.user, label: 'Patreon creator', name: view.creatorName },
    { icon: icons.server, label: 'Discord server', name: view.guildName },
  ]);

  if (view.choices.length === 0) {
    return renderDocument({
      title: 'No campaign to connect',
      tone: 'warning',
      main: [
        hero({
          tone: 'warning',
          context: where,
          headline: 'No campaign to connect',
          lead: html`<strong>${view.creatorName}</strong>, this Patreon account runs no campaign that Tierlink can read.`,
        }),
        nextSteps([
          {
            text: html`Sign in with the Patreon account that runs your campaign: run ${command('/connect')} again in Discord.`,
            detail: 'If you are signed in to Patreon as someone else, sign out there first.',
          },
        ]),
      ],
      footer: ['You can close this tab.'],
    });
  }

  const main = [
    hero({
      tone: 'info',
      context: where,
      eyebrow: 'One more step',
      headline: 'Which campaign should this server follow?',
      lead: html`<strong>${view.creatorName}</strong>, your Patreon account runs ${plural(view.choices.length, 'campaign')}. Pick the one whose tiers decide the roles in <strong>${server}</strong>.`,
    }),
    section({
      id: 'choices',
      title: 'Your campaigns',
      intro: html`To serve another campaign here as well, run ${command('/connect')} again and choose it.`,
      body: html`<ul class="choices" data-next-step>${view.choices.map((c) => choiceItem(view, c))}</ul>`,
    }),
  ];

  return renderDocument({
    title: 'Choose a campaign',
    tone: 'info',
    main,
    footer: ['Nothing is connected until you choose.'],
  });
}

/** One campaign: a form posting its ticket (with the page's token) to the chooser; a choice acts once. */
function choiceItem(view: ChooseCampaignView, choice: Choice): SafeHtml {
  const page = safeHref(choice.url);
  const initial = Array.from(choice.name.trim())[0]?.toUpperCase() ?? '?';
  const meta = choice.patronCount === null ? 'Patron count not shared' : plural(choice.patronCount, 'patron');
  const body = html`<span class="choice-mark" aria-hidden="true">${initial}</span> <span class="choice-body"><span class="choice-name">${choice.name}</span> <span class="choice-meta">${meta}</span></span>${icons.chevronRight}`;
  return html`<li class="choice"><form method="post" action="${view.action}"><input type="hidden" name="ticket" value="${choice.ticket}"><input type="hidden" name="csrf" value="${view.csrf}"><button type="submit" class="choice-link">${body}</button></form>${
    page ? html`<p class="choice-extra"><a href="${page}" rel="noopener noreferrer">View on Patreon</a></p>` : null
  }</li>`;
}
