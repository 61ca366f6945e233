import { requestIdFromAuthorizePage } from '@tierlink/sandbox/discord';

/**
 * A browser's cookie jar over plain `fetch`: what one person's browser sends and keeps, per host.
 * Two `Browser`s are two people (the attacker's and the patron's); cookies never cross between them.
 * Redirects are not followed: each step is a request the test makes and reads.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  private jar(url: string): Map<string, string> {
    const host = new URL(url).host;
    let jar = this.jars.get(host);
    if (!jar) {
      jar = new Map();
      this.jars.set(host, jar);
    }
    return jar;
  }

  private keep(url: string, res: Response): void {
    const jar = this.jar(url);
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((p) => p.trim());
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at);
      const gone = attributes.some((a) => /^max-age=0$/i.test(a) || /^max-age=-/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, pair.slice(at + 1));
    }
  }

  private headers(url: string, extra: Record<string, string> = {}): Record<string, string> {
    const jar = this.jar(url);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    return cookie ? { ...extra, cookie } : extra;
  }

  async get(url: string): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: this.headers(url) });
    this.keep(url, res);
    return res;
  }

  /** A form post, as a page's `<form method="post">` sends it. */
  async post(url: string, form: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: this.headers(url, { 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams(form).toString(),
    });
    this.keep(url, res);
    return res;
  }

  /** The cookies this browser holds for a URL's host. */
  cookies(url: string): Map<string, string> {
    return new Map(this.jar(url));
  }
}

/**
 * Plays a person at Discord's authorize page in `browser` (its cookies: a browser logged in to the
 * stand-in and already authorized is sent back at once when the URL says `prompt=none`): opens the
 * page and, when it asks, logs in as `userId` and answers. Returns where Discord sends the browser.
 */
export async function discordConsent(
  browser: Browser,
  authorizeUrl: string,
  userId: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<string> {
  const opened = await browser.get(authorizeUrl);
  const html = await opened.text();
  const location = opened.headers.get('location');
  if (opened.status === 302 && location) return location;
  const request = requestIdFromAuthorizePage(html);
  if (opened.status !== 200 || !request) throw new Error(`Discord's authorize page answered ${opened.status}: ${html.slice(0, 300)}`);
  const answered = await browser.post(new URL('/oauth2/authorize', authorizeUrl).toString(), {
    request,
    decision,
    ...(decision === 'allow' ? { user_id: userId } : {}),
  });
  const next = answered.headers.get('location');
  if (answered.status !== 302 || !next)
    throw new Error(`Discord's consent form answered ${answered.status}: ${(await answered.text()).slice(0, 300)}`);
  return next;
}
