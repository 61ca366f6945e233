import type { Response } from 'express';

/**
 * Every HTML page Tierlink serves goes out with these headers: never cached (pages name people and
 * carry one-time links), no referrer (a page's URL may hold a state), no framing, no sniffing, and
 * the page's own Content-Security-Policy.
 */
export function sendHtml(res: Response, status: number, html: string, contentSecurityPolicy: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': `${contentSecurityPolicy}; frame-ancestors 'none'`,
    })
    .send(html);
}
