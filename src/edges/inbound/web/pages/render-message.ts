import { prose, type HtmlValue } from './html';
import { hero, nextSteps, renderDocument, type Tone } from './layout';
import type { MessageView } from './views';

/** A label over the headline that names the kind of failure, for the statuses our routes answer. */
const STATUS_LABEL: Record<number, string> = {
  400: 'Security check',
  403: 'Not allowed',
  404: 'Not found',
  410: 'One-time link',
  429: 'Too many tries',
  500: 'Unexpected error',
  502: 'Patreon connection',
  503: 'Temporarily unavailable',
  504: 'Patreon connection',
};

/** A one-message page: an expired link, denied consent, a bad state, an outage. */
export function renderMessage(view: MessageView): string {
  const tone: Tone = view.tone;
  const label = STATUS_LABEL[view.status] ?? (view.status >= 500 ? 'Unexpected error' : null);
  const footer: HtmlValue[] = [];
  if (view.status >= 500) footer.push('Nothing you did caused this, and nothing was changed.');
  footer.push(view.status >= 400 ? `You can close this tab. Error code ${view.status}.` : 'You can close this tab.');

  return renderDocument({
    title: view.title,
    tone,
    main: [
      hero({ tone, eyebrow: label, headline: view.title, lead: prose(view.message) }),
      view.next ? nextSteps([{ text: prose(view.next) }]) : null,
    ],
    footer,
  });
}

/** The command that starts each flow: `/link` for patrons, `/connect` for creators. */
export type FlowCommand = '/link' | '/connect';

/** 410: a one-time link that is past its lifetime (or was already used up). */
export function linkExpiredMessage(command: FlowCommand): MessageView {
  return {
    status: 410,
    tone: 'warning',
    title: 'This link has expired',
    message: `Links from ${command} work once, for a short while, to keep your account safe.`,
    next: `Run ${command} again in Discord to get a new link.`,
  };
}

/** The person declined on the service's consent screen. Not an error: nothing was linked. */
export function consentDeniedMessage(command: FlowCommand): MessageView {
  return {
    status: 200,
    tone: 'info',
    title: command === '/link' ? 'Nothing was linked' : 'Nothing was connected',
    message:
      command === '/link'
        ? 'You chose not to share your Patreon membership, so your Discord roles stay as they are.'
        : 'You chose not to give Tierlink access to your campaign, so nothing was connected.',
    next: `Changed your mind? Run ${command} again in Discord and choose Allow.`,
  };
}

/**
 * 400: a state that we did not sign, that was tampered with, or that was already used; `null` when
 * nothing says which flow it was (a Discord answer this browser did not ask for).
 */
export function badStateMessage(command: FlowCommand | null): MessageView {
  return {
    status: 400,
    tone: 'error',
    title: "This link can't be used",
    message: 'It was already used, or it did not come from Tierlink. To keep your account safe, nothing was changed.',
    next: command ? `Run ${command} again in Discord to get a fresh link.` : 'Run the command again in Discord to get a fresh link.',
  };
}

/**
 * 403: the page of a `/link` or `/connect` link signed the person in with Discord, and that account
 * is not the one that ran the command. That is what a link passed on to someone else looks like:
 * the link is spent and nothing is linked.
 */
export function madeForSomeoneElseMessage(
  command: FlowCommand,
  signedInAs: { username: string | null; globalName: string | null },
): MessageView {
  const who = signedInAs.username
    ? signedInAs.globalName
      ? `${signedInAs.globalName} (@${signedInAs.username})`
      : `@${signedInAs.username}`
    : 'another account';
  return {
    status: 403,
    tone: 'error',
    title: 'This link was made for someone else',
    message:
      `It was made for another Discord account, and you are signed in to Discord as ${who}. Each ${command} link belongs to ` +
      'the account that ran the command. Nothing was linked or changed.',
    next:
      `Run ${command} yourself in Discord and follow the button it gives you. If you did run it, sign in to Discord in this ` +
      'browser with that account first.',
  };
}

/** 403: the person is not (or no longer) the server's owner or an administrator: no campaign is connected. */
export function connectNotAllowedMessage(): MessageView {
  return {
    status: 403,
    tone: 'error',
    title: 'Only the owner or an administrator can connect',
    message:
      'A campaign’s tiers decide which roles its patrons get in the server, so only the server owner or someone with the ' +
      'Administrator permission can connect one. Nothing was connected.',
    next: 'Ask the server owner or an administrator to run /connect.',
  };
}

/** The person pressed Cancel on Discord's page: nothing was linked, nothing is wrong. */
export function discordDeniedMessage(command: FlowCommand): MessageView {
  return {
    status: 200,
    tone: 'info',
    title: command === '/link' ? 'Nothing was linked' : 'Nothing was connected',
    message: `You cancelled on Discord’s page. Tierlink asks Discord only who you are, to make sure the ${command} link is yours.`,
    next: `Changed your mind? Press the button from ${command} again and choose Authorize.`,
  };
}

/** 502: Discord failed or timed out while we learned who signed in. */
export function discordDownMessage(command: FlowCommand): MessageView {
  return {
    status: 502,
    tone: 'warning',
    title: "We couldn't reach Discord",
    message: 'Discord did not answer in time, so Tierlink could not check who you are. Nothing was changed.',
    next: `Wait a minute, then run ${command} again in Discord.`,
  };
}

/** 502: the membership service failed or timed out while we exchanged the code or read the member. */
export function serviceDownMessage(command: FlowCommand): MessageView {
  return {
    status: 502,
    tone: 'warning',
    title: "We couldn't reach Patreon",
    message: `Patreon did not answer in time, so we could not ${command === '/link' ? 'check your membership' : 'read your campaign'}.`,
    next: `Wait a minute, then run ${command} again in Discord.`,
  };
}

/**
 * 403: a valid state arrived in a browser that did not start the flow (no flow cookie, or another
 * one). That is what a forwarded consent page looks like (login CSRF): nothing is linked.
 */
export function otherBrowserMessage(command: FlowCommand): MessageView {
  return {
    status: 403,
    tone: 'error',
    title: 'Start again from Discord',
    message:
      `This page was opened in a different browser from the one that followed the ${command} link, the link was passed ` +
      'on by someone else, or this browser did not keep Tierlink’s cookie. To keep your account safe, nothing was linked or changed.',
    next: `Run ${command} yourself in Discord and follow the button it gives you, in this browser.`,
  };
}

/** The campaign chooser's ticket was already used, expired, or is not for this browser. */
export function choiceRefusedMessage(reason: 'used' | 'expired' | 'invalid'): MessageView {
  const message = {
    used: 'A campaign was already chosen from this page, and a choice works once.',
    expired: 'The choice of campaign is open for 30 minutes after signing in, and that time is over.',
    invalid: 'This choice did not come from the page Tierlink showed in this browser, so nothing was connected.',
  }[reason];
  return {
    status: reason === 'used' ? 409 : reason === 'expired' ? 410 : 403,
    tone: 'warning',
    title: 'Choose again from Discord',
    message,
    next: 'Run /connect again in Discord to choose a campaign.',
  };
}

/** 405: the chooser acts only on the page's form (a POST), never on a link that can be followed or leaked. */
export function chooseByFormMessage(): MessageView {
  return {
    status: 405,
    tone: 'warning',
    title: 'Choose on the page',
    message: 'A campaign is chosen with the buttons of the page Tierlink showed after you signed in, not with a link.',
    next: 'Run /connect again in Discord to get that page.',
  };
}
