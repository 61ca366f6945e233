import { type Locale, type T, translator } from '../../../../core/i18n';
import { prose, type HtmlValue } from './html';
import { hero, nextSteps, renderDocument, type Tone } from './layout';
import { type PageSpeech, speech } from './speech';
import type { MessageView } from './views';

const EN = translator('en');

/** A label over the headline that names the kind of failure, for the statuses our routes answer. */
const STATUS_LABEL = {
  400: 'label.400',
  403: 'label.403',
  404: 'label.404',
  410: 'label.410',
  429: 'label.429',
  500: 'label.500',
  502: 'label.502',
  503: 'label.503',
  504: 'label.502',
} as const;

/**
 * A one-message page: an expired link, denied consent, a bad state, an outage, in the reader's
 * language (the view's texts come from the same language's builders below).
 */
export function renderMessage(
  view: MessageView,
  said: PageSpeech = speech(),
  languages: ((locale: Locale) => string) | null = null,
): string {
  const { t, locale } = said;
  const tone: Tone = view.tone;
  const key = STATUS_LABEL[view.status as keyof typeof STATUS_LABEL] as (typeof STATUS_LABEL)[keyof typeof STATUS_LABEL] | undefined;
  const label = key ? t(key) : view.status >= 500 ? t('label.500') : null;
  const footer: HtmlValue[] = [];
  if (view.status >= 500) footer.push(t('page.notYourFault'));
  footer.push(view.status >= 400 ? t('page.closeCode', { status: view.status }) : t('page.close'));

  return renderDocument({
    title: view.title,
    locale,
    languages,
    tone,
    main: [
      hero({ tone, eyebrow: label, headline: view.title, lead: prose(view.message) }),
      view.next ? nextSteps([{ text: prose(view.next) }], null, t) : null,
    ],
    footer,
  });
}

/** The command that starts each flow: `/link` for patrons, `/connect` for creators. */
export type FlowCommand = '/link' | '/connect';

/** 410: a one-time link that is past its lifetime, or that was already used (`used`). */
export function linkExpiredMessage(command: FlowCommand, t: T = EN, used = false): MessageView {
  return {
    status: 410,
    tone: 'warning',
    title: used ? t('msg.usedTitle') : t('msg.expiredTitle'),
    message: t('msg.usedMessage', { command }),
    next: t('msg.usedNext', { command }),
  };
}

/** The person declined on the service's consent screen. Not an error: nothing was linked. */
export function consentDeniedMessage(command: FlowCommand, t: T = EN): MessageView {
  return {
    status: 200,
    tone: 'info',
    title: command === '/link' ? t('msg.deniedLinkTitle') : t('msg.deniedConnectTitle'),
    message: command === '/link' ? t('msg.deniedLink') : t('msg.deniedConnect'),
    next: t('msg.deniedNext', { command }),
  };
}

/**
 * 400: a state that we did not sign, that was tampered with, or that was already used; `null` when
 * nothing says which flow it was (a Discord answer this browser did not ask for).
 */
export function badStateMessage(command: FlowCommand | null, t: T = EN): MessageView {
  return {
    status: 400,
    tone: 'error',
    title: t('msg.badStateTitle'),
    message: t('msg.badStateMessage'),
    next: command ? t('msg.badStateNext', { command }) : t('msg.badStateNextAny'),
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
  t: T = EN,
): MessageView {
  const who = signedInAs.username
    ? signedInAs.globalName
      ? `${signedInAs.globalName} (@${signedInAs.username})`
      : `@${signedInAs.username}`
    : t('msg.anotherAccount');
  return {
    status: 403,
    tone: 'error',
    title: t('msg.someoneElseTitle'),
    message: t('msg.someoneElseMessage', { who, command }),
    next: t('msg.someoneElseNext', { command }),
  };
}

/** 403: the person is not (or no longer) the server's owner or an administrator: no campaign is connected. */
export function connectNotAllowedMessage(t: T = EN): MessageView {
  return {
    status: 403,
    tone: 'error',
    title: t('msg.notAllowedTitle'),
    message: t('msg.notAllowedMessage'),
    next: t('msg.notAllowedNext'),
  };
}

/** The person pressed Cancel on Discord's page: nothing was linked, nothing is wrong. */
export function discordDeniedMessage(command: FlowCommand, t: T = EN): MessageView {
  return {
    status: 200,
    tone: 'info',
    title: command === '/link' ? t('msg.deniedLinkTitle') : t('msg.deniedConnectTitle'),
    message: t('msg.discordDeniedMessage', { command }),
    next: t('msg.discordDeniedNext', { command }),
  };
}

/** 502: Discord failed or timed out while we learned who signed in. */
export function discordDownMessage(command: FlowCommand, t: T = EN): MessageView {
  return {
    status: 502,
    tone: 'warning',
    title: t('msg.discordDownTitle'),
    message: t('msg.discordDownMessage'),
    next: t('msg.waitThenRun', { command }),
  };
}

/** 502: the membership service failed or timed out while we exchanged the code or read the member. */
export function serviceDownMessage(command: FlowCommand, t: T = EN): MessageView {
  return {
    status: 502,
    tone: 'warning',
    title: t('msg.serviceDownTitle'),
    message: command === '/link' ? t('msg.serviceDownLink') : t('msg.serviceDownConnect'),
    next: t('msg.waitThenRun', { command }),
  };
}

/**
 * 403: a valid state arrived in a browser that did not start the flow (no flow cookie, or another
 * one). That is what a forwarded consent page looks like (login CSRF): nothing is linked.
 */
export function otherBrowserMessage(command: FlowCommand, t: T = EN): MessageView {
  return {
    status: 403,
    tone: 'error',
    title: t('msg.otherBrowserTitle'),
    message: t('msg.otherBrowserMessage', { command }),
    next: t('msg.otherBrowserNext', { command }),
  };
}

/** The campaign chooser's ticket was already used, expired, or is not for this browser. */
export function choiceRefusedMessage(reason: 'used' | 'expired' | 'invalid', t: T = EN): MessageView {
  const message = { used: t('msg.choiceUsed'), expired: t('msg.choiceExpired'), invalid: t('msg.choiceInvalid') }[reason];
  return {
    status: reason === 'used' ? 409 : reason === 'expired' ? 410 : 403,
    tone: 'warning',
    title: t('msg.choiceTitle'),
    message,
    next: t('msg.choiceNext'),
  };
}

/** 405: the chooser acts only on the page's form (a POST), never on a link that can be followed or leaked. */
export function chooseByFormMessage(t: T = EN): MessageView {
  return { status: 405, tone: 'warning', title: t('msg.byFormTitle'), message: t('msg.byFormMessage'), next: t('msg.byFormNext') };
}
