import { html, plural, prose, type HtmlValue, type SafeHtml } from './html';
import { command, context, hero, icons, mention, nextSteps, notice, renderDocument, section, type Step, type Tone } from './layout';
import type { LinkResultView, RoleLine } from './views';

/**
 * The page a patron lands on after authorizing from `/link`. Every standing gets a headline and a
 * next step, so nobody is left wondering why a role is (or is not) there.
 */
export function renderLinkResult(view: LinkResultView): string {
  const copy = linkResultCopy(view);
  const server = view.guildName ?? 'the Discord server';

  const roleRows = [
    ...view.granted.map((r) => roleRow(r, 'added', 'Added')),
    ...view.kept.map((r) => roleRow(r, 'kept', 'Kept')),
    ...view.removed.map((r) => roleRow(r, 'removed', 'Removed')),
    ...view.notGranted.map((r) => roleRow(r, 'skipped', 'Not included')),
  ];

  const main = [
    hero({
      tone: copy.tone,
      context: context([
        { icon: icons.star, label: 'Campaign', name: view.campaignName },
        { icon: icons.server, label: 'Discord server', name: view.guildName },
        { icon: icons.user, label: 'Discord account', name: accountName(view) },
      ]),
      headline: copy.headline,
      lead: copy.lead,
      standing: view.standingText,
    }),
    nextSteps(copy.steps),
    copy.aside && notice(copy.aside),
    notice(
      html`Your Patreon membership is linked to the Discord account <strong>${accountName(view)}</strong>. Not you? Run ${command('/link')} yourself in Discord: the membership moves to your account.`,
    ),
    view.movedFromAnotherAccount &&
      notice(
        'This Patreon account was linked to another Discord account before. It is linked to this one now, and its roles moved here with it.',
      ),
    view.tiers.length > 0 &&
      section({
        id: 'tiers',
        title: view.tiers.length === 1 ? 'Your tier' : 'Your tiers',
        body: html`<ul class="chips">${view.tiers.map((t) => html`<li class="chip">${icons.star}${t}</li>`)}</ul>`,
      }),
    roleRows.length > 0 &&
      section({
        id: 'roles',
        title: view.guildName ? `Your roles in ${view.guildName}` : 'Your roles',
        body: html`<ul class="rows">${roleRows}</ul>`,
      }),
    view.problems.length > 0 &&
      section({
        id: 'problems',
        title: 'Waiting on the server',
        intro: `${view.problems.length === 1 ? 'This role' : 'These roles'} can't be given until ${server} is set up right. The server's owner has been told; nothing for you to do.`,
        body: html`<ul class="rows">${view.problems.map(
          (p) =>
            html`<li class="row"><div class="row-main"><span class="row-name">${mention(p.name)}</span> <span class="pill warn">On hold</span></div><p class="row-text">${prose(p.problem)}</p></li>`,
        )}</ul>`,
      }),
  ];

  return renderDocument({
    title: copy.headline,
    tone: copy.tone,
    main,
    footer: [
      'Tierlink keeps your Discord roles in step with your Patreon membership. You can close this tab.',
      html`To disconnect, run ${command('/unlink')} in Discord.`,
    ],
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

function linkResultCopy(view: LinkResultView): LinkCopy {
  const server = view.guildName ?? 'the Discord server';
  const hasRoles = view.granted.length + view.kept.length > 0;
  const pledge = (label: string): Step['action'] => (view.pledgeUrl ? { label, href: view.pledgeUrl } : null);
  const joinStep: Step = {
    text: `Join ${server}. Your roles arrive when you do.`,
    detail: html`Your accounts are linked, so there is no need to run ${command('/link')} again.`,
  };
  const onHold = view.problems.length === 1 ? 'the role on hold' : 'the roles on hold';
  const problemStep: Step = {
    text: `Nothing to do for ${onHold}: the server's owner has been told.`,
    detail: `${view.problems.length === 1 ? 'It arrives on its own' : 'They arrive on their own'} as soon as the server's setup is fixed.`,
  };

  switch (view.standing) {
    case 'active': {
      if (!view.inGuild) {
        return { tone: 'info', headline: 'Linked! Now join the server', lead: thanks(view), steps: [joinStep] };
      }
      if (view.problems.length > 0 && !hasRoles) {
        return { tone: 'warning', headline: 'Linked, but your roles are on hold', lead: thanks(view), steps: [problemStep] };
      }
      const steps: Step[] = hasRoles
        ? [
            {
              text: 'Head back to Discord: your roles are already there.',
              detail: 'They follow your pledge from now on. Upgrade, downgrade or cancel on Patreon and Discord keeps up.',
            },
          ]
        : view.tiers.length === 0
          ? [
              {
                text: `Your pledge has no tier, and only tiers come with roles in ${server}.`,
                detail: 'Choose a tier on Patreon and its role arrives on its own.',
              },
            ]
          : [
              {
                text: `Your tier comes with no role in ${server}, so there is nothing to add.`,
                detail: 'If a tier you join later comes with a role, it arrives on its own.',
              },
            ];
      if (view.problems.length > 0) steps.push(problemStep);
      const headline =
        view.problems.length > 0
          ? `You're linked; ${plural(view.problems.length, 'role').replace(' ', '\u00a0')} ${view.problems.length === 1 ? 'is' : 'are'} on hold`
          : hasRoles
            ? "You're all set"
            : "You're linked";
      return { tone: 'success', headline, lead: thanks(view), steps };
    }
    case 'grace': {
      const until = lastDate(view.standingText);
      const steps: Step[] = [
        {
          text: until ? `Update your payment method on Patreon before ${until}.` : 'Update your payment method on Patreon soon.',
          detail: 'Your roles stay until then, and nothing else changes once the payment goes through.',
          action: pledge('Open Patreon'),
        },
      ];
      if (!view.inGuild) steps.push(joinStep);
      if (view.problems.length > 0) steps.push(problemStep);
      return {
        tone: 'warning',
        headline: "Your last payment didn't go through",
        lead: html`You're linked as <strong>${view.patronName}</strong>, and your roles are kept for now.`,
        steps,
      };
    }
    case 'lapsed':
      return {
        tone: 'error',
        headline: 'Your membership has lapsed',
        lead: html`You're linked as <strong>${view.patronName}</strong>, but the payment didn't go through in time${view.removed.length > 0 ? ', so your patron roles were removed' : ''}.`,
        steps: [
          {
            text: 'Renew your pledge on Patreon to get your roles back.',
            detail: html`They come back on their own once your payment goes through. No need to run ${command('/link')} again.`,
            action: pledge('Renew on Patreon'),
          },
        ],
      };
    case 'former':
      return {
        tone: 'info',
        headline: "You're no longer a patron",
        lead: html`You're linked as <strong>${view.patronName}</strong>. Your pledge has ended, so patron roles don't apply right now.`,
        steps: [pledgeAgainStep(view, 'Pledge again on Patreon to get your roles back.', pledge('Become a patron again'))],
      };
    case 'follower':
      return {
        tone: 'info',
        headline: 'You follow, but aren\u2019t a paid member',
        lead: html`You're linked as <strong>${view.patronName}</strong>. Following is free and doesn't come with roles in ${server}.`,
        steps: [pledgeAgainStep(view, 'Join a paid tier on Patreon to unlock your roles.', pledge('See the tiers'))],
      };
    case 'none':
      return {
        tone: 'info',
        headline: "You're not a patron yet",
        lead: html`You're linked as <strong>${view.patronName}</strong>, but this Patreon account has no membership here.`,
        steps: [pledgeAgainStep(view, 'Become a patron on Patreon to get your roles.', pledge('Become a patron'))],
        aside: html`Pledged with a different Patreon account? Run ${command('/link')} again in Discord and sign in with that one.`,
      };
  }
}

function pledgeAgainStep(view: LinkResultView, text: string, action: Step['action']): Step {
  return {
    text,
    detail: `Your accounts are linked now, so your roles arrive on their own a moment after you pledge${view.inGuild ? '' : ' and join the server'}.`,
    action,
  };
}

function thanks(view: LinkResultView): SafeHtml {
  return html`Thanks for your support, <strong>${view.patronName}</strong>! Your Patreon membership is now linked to your Discord account.`;
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
 * that sentence.
 */
function lastDate(text: string): string | null {
  const days = text.match(/\d{4}-\d{2}-\d{2}/g);
  const last = days?.[days.length - 1];
  if (!last) return null;
  const date = new Date(`${last}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return null;
  return date.toLocaleDateString('en-US', { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' });
}
