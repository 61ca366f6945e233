export { renderLinkResult } from './render-link-result';
export { renderConnectResult } from './render-connect-result';
export { renderChooseCampaign } from './render-choose-campaign';
export { renderJoinPage, renderJoinRefusal, renderJoinResult } from './render-join';
export {
  renderMessage,
  linkExpiredMessage,
  consentDeniedMessage,
  badStateMessage,
  serviceDownMessage,
  otherBrowserMessage,
  madeForSomeoneElseMessage,
  connectNotAllowedMessage,
  discordDeniedMessage,
  discordDownMessage,
  choiceRefusedMessage,
  chooseByFormMessage,
  type FlowCommand,
} from './render-message';
export { PAGE_CONTENT_SECURITY_POLICY } from './layout';
export { escapeHtml, html, safeHref, SafeHtml, type HtmlValue } from './html';
export type * from './views';
