import { sendHtml } from '../html-response';
import type { Request, Response } from 'express';
import { DASHBOARD_CONTENT_SECURITY_POLICY } from './styles';

/** Cookies and responses of the dashboard. */

/** Browsers keep `__Host-` cookies only when Secure, on `/`, without a Domain: no subdomain can plant or read them. */
export function cookieName(base: 'session' | 'signin', secure: boolean): string {
  return `${secure ? '__Host-' : ''}tierlink-${base}`;
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Lax (no other site's form sends it), Secure when PUBLIC_URL is https. */
export function setCookie(res: Response, name: string, value: string, options: { secure: boolean; maxAgeMs: number }): void {
  res.cookie(name, value, { httpOnly: true, sameSite: 'lax', secure: options.secure, path: '/', maxAge: options.maxAgeMs });
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  res.clearCookie(name, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}

export function sendDashboardPage(res: Response, status: number, page: string): void {
  sendHtml(res, status, page, DASHBOARD_CONTENT_SECURITY_POLICY);
}

/** Post, redirect, get: a change answers with a redirect, so a reload never repeats it. */
export function seeOther(res: Response, location: string): void {
  res.set('Cache-Control', 'no-store').redirect(303, location);
}
