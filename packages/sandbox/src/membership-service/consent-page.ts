import { escapeHtml } from './http-kit';

/** The route the consent form posts to; it answers with the redirect of Authentication §4.2. */
export const CONSENT_DECISION_PATH = '/__sandbox/authorize';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}' +
  'h1{font-size:1.4rem}code{background:#eee;padding:0 .2rem}button{font-size:1rem;padding:.4rem 1rem;margin-right:.5rem}' +
  'input,select{font-size:1rem;padding:.3rem;width:100%;box-sizing:border-box;margin:.3rem 0 1rem}';

export interface ConsentPageInput {
  requestId: string;
  clientName: string;
  scopes: readonly string[];
  redirectUri: string;
  /** Users to offer; the field also accepts any other user id. */
  users: ReadonlyArray<{ id: string; fullName: string }>;
}

/** The sandbox's stand-in for the service's consent screen: who is logging in, then Allow or Deny. */
export function consentPage(input: ConsentPageInput): string {
  const options = input.users
    .map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(u.fullName)} (${escapeHtml(u.id)})</option>`)
    .join('');
  const scopes = input.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize ${escapeHtml(input.clientName)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(input.clientName)} wants to access your account</h1>
<p>Requested scopes:</p><ul>${scopes}</ul>
<p>After you decide you will be sent to <code>${escapeHtml(input.redirectUri)}</code>.</p>
<form method="post" action="${CONSENT_DECISION_PATH}">
<input type="hidden" name="request" value="${escapeHtml(input.requestId)}">
<label for="user_id">Log in as (sandbox user id)</label>
<input id="user_id" name="user_id" list="sandbox-users" required autocomplete="off">
<datalist id="sandbox-users">${options}</datalist>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></body></html>`;
}

export function errorPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/** Reads the pending request id back out of a consent page (used by the in-process helpers). */
export function requestIdFromConsentPage(page: string): string | null {
  return /name="request" value="([^"]+)"/.exec(page)?.[1] ?? null;
}
