import type { E2E } from './e2e';

export interface PageAnswer {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

/**
 * A browser over plain HTTP: it keeps cookies as a browser would for one site, follows nothing by
 * itself, and posts forms with the page's token. What it does not do, it cannot fake: the session
 * comes only from signing in through the Discord stand-in's consent page.
 */
export class DashboardBrowser {
  private readonly jar = new Map<string, string>();

  constructor(readonly base: string) {}

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  private header(): Record<string, string> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    return cookie ? { cookie } : {};
  }

  async get(path: string): Promise<PageAnswer> {
    const response = await fetch(new URL(path, this.base), { headers: this.header(), redirect: 'manual' });
    this.remember(response.headers);
    return { status: response.status, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
  }

  /** Posts a form; `_csrf` comes from `csrfFrom` (a page's HTML) unless the fields carry their own. */
  async post(path: string, fields: Record<string, string>, options: { csrfFrom?: string; origin?: string } = {}): Promise<PageAnswer> {
    const token = options.csrfFrom ? csrfToken(options.csrfFrom) : undefined;
    const body = new URLSearchParams({ ...(token ? { _csrf: token } : {}), ...fields });
    const response = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: {
        ...this.header(),
        'content-type': 'application/x-www-form-urlencoded',
        origin: options.origin ?? new URL(this.base).origin,
      },
      body: body.toString(),
      redirect: 'manual',
    });
    this.remember(response.headers);
    return { status: response.status, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
  }

  /** Follows a redirect chain within this site (as a browser would after a form). */
  async follow(answer: PageAnswer): Promise<PageAnswer> {
    let current = answer;
    for (let hops = 0; current.location && hops < 5; hops++) current = await this.get(current.location);
    return current;
  }
}

export function csrfToken(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no form token on the page');
  return token;
}

/**
 * Signs `userId` in: the dashboard's login redirect, the Discord stand-in's consent page (as that
 * user), the callback. Returns the browser, signed in, and the page it landed on.
 */
export async function signIn(e: E2E, userId: string, next?: string): Promise<{ browser: DashboardBrowser; landing: PageAnswer }> {
  e.discord.registerRedirectUri(`${e.url}/dashboard/callback`);
  const browser = new DashboardBrowser(e.url);
  const login = await browser.get(`/dashboard/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  if (login.status !== 302 || !login.location) throw new Error(`login answered ${login.status}`);
  const callback = await e.discord.approveAuthorization(login.location, userId);
  const answer = await browser.get(new URL(callback).pathname + new URL(callback).search);
  return { browser, landing: await browser.follow(answer) };
}

/** The settings form as the Tiers and roles page sends it with the defaults (strict mode unticked, free tiers' roles ticked). */
export const DEFAULT_SETTINGS_FORM = {
  grace_days: '7',
  mode: 'stack',
  former_role: '',
  follower_role: '',
  free_tiers_grant_roles: 'on',
  removal_threshold_percent: '10',
  removal_threshold_min: '25',
} as const;
