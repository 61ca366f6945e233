import type { NextFunction, Request, Response } from 'express';
import { type Locale, type T, fromAcceptLanguage, isLocale, translator } from '../../../core/i18n';

/** The cookie that keeps a language chosen on a page (or carried by a `/link` button) for the pages after it. */
export const LANGUAGE_COOKIE = 'tierlink_lang';

const YEAR_S = 365 * 24 * 60 * 60;

/**
 * The language of the pages (docs/i18n.md): `?lang=` (the switch on a page, or a `/link` button
 * made in the member's Discord language), kept in a cookie for the pages of the flow that follow;
 * else that cookie; else the browser's `Accept-Language`. Sets `res.locals.locale` for every page.
 */
export function pageLanguage(options: { secure: () => boolean }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const asked = typeof req.query.lang === 'string' ? req.query.lang : null;
    let locale: Locale;
    if (isLocale(asked)) {
      locale = asked;
      res.append(
        'Set-Cookie',
        `${LANGUAGE_COOKIE}=${asked}; Path=/; Max-Age=${YEAR_S}; HttpOnly; SameSite=Lax${options.secure() ? '; Secure' : ''}`,
      );
    } else {
      const kept = cookieValue(req.headers.cookie, LANGUAGE_COOKIE);
      locale = isLocale(kept) ? kept : fromAcceptLanguage(req.headers['accept-language']);
    }
    res.locals.locale = locale;
    res.vary('Accept-Language').vary('Cookie');
    next();
  };
}

/** The language a page is rendered in (English outside {@link pageLanguage}). */
export function localeOf(res: Response): Locale {
  const locale: unknown = res.locals.locale;
  return isLocale(locale) ? locale : 'en';
}

export function tOf(res: Response): T {
  return translator(localeOf(res));
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.slice(0, 8192).split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}
