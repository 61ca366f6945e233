import { html, safeHref, type SafeHtml } from './html';
import { context, hero, icons, nextSteps, renderDocument, section } from './layout';
import { type PageSpeech, richOf, speech } from './speech';
import type { ChooseCampaignView } from './views';

type Choice = ChooseCampaignView['choices'][number];

/**
 * The campaign chooser, for a creator with several campaigns and no PATREON_CAMPAIGN_ID. In the
 * reader's language (`said`); no language switch: the page answers the service's consent and its
 * choices act once, so it cannot be loaded again.
 */
export function renderChooseCampaign(view: ChooseCampaignView, said: PageSpeech = speech()): string {
  const { t, locale } = said;
  const rich = richOf(t);
  const server = view.guildName ?? t('connectPage.thisServer');
  const where = context([
    { icon: icons.user, label: t('connectPage.creator'), name: view.creatorName },
    { icon: icons.server, label: t('page.server'), name: view.guildName },
  ]);

  if (view.choices.length === 0) {
    return renderDocument({
      title: t('connectPage.noCampaignTitle'),
      locale,
      tone: 'warning',
      main: [
        hero({
          tone: 'warning',
          context: where,
          headline: t('connectPage.noCampaignTitle'),
          lead: rich('connectPage.noCampaignLead', { creator: view.creatorName }),
        }),
        nextSteps([{ text: rich('connectPage.noCampaignStep'), detail: t('connectPage.noCampaignDetail') }], null, t),
      ],
      footer: [t('page.close')],
    });
  }

  const main = [
    hero({
      tone: 'info',
      context: where,
      eyebrow: t('connectPage.chooseEyebrow'),
      headline: t('connectPage.chooseHeadline'),
      lead: rich('connectPage.chooseLead', { creator: view.creatorName, count: view.choices.length, server }),
    }),
    section({
      id: 'choices',
      title: t('connectPage.yourCampaigns'),
      intro: rich('connectPage.chooseIntro'),
      body: html`<ul class="choices" data-next-step>${view.choices.map((c) => choiceItem(view, c, said))}</ul>`,
    }),
  ];

  return renderDocument({
    title: t('connectPage.chooseTitle'),
    locale,
    tone: 'info',
    main,
    footer: [t('connectPage.chooseFooter')],
  });
}

/** One campaign: a form posting its ticket (with the page's token) to the chooser; a choice acts once. */
function choiceItem(view: ChooseCampaignView, choice: Choice, { t }: PageSpeech): SafeHtml {
  const page = safeHref(choice.url);
  const initial = Array.from(choice.name.trim())[0]?.toUpperCase() ?? '?';
  const meta = choice.patronCount === null ? t('connectPage.patronsHidden') : t('connectPage.patrons', { count: choice.patronCount });
  const body = html`<span class="choice-mark" aria-hidden="true">${initial}</span> <span class="choice-body"><span class="choice-name">${choice.name}</span> <span class="choice-meta">${meta}</span></span>${icons.chevronRight}`;
  return html`<li class="choice"><form method="post" action="${view.action}"><input type="hidden" name="ticket" value="${choice.ticket}"><input type="hidden" name="csrf" value="${view.csrf}"><button type="submit" class="choice-link">${body}</button></form>${
    page ? html`<p class="choice-extra"><a href="${page}" rel="noopener noreferrer">${t('connectPage.viewOnPatreon')}</a></p>` : null
  }</li>`;
}
