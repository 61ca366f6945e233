import type express from 'express';
import { type WebAppDeps, createWebApp } from './app';
import { type ConnectViewDeps, connectResultView } from './connect-result-view';

export type WebDeps = Omit<WebAppDeps, 'connectView'> & ConnectViewDeps;

/**
 * The web side of Tierlink: the express app with the pages of `/link` and `/connect`, the OAuth
 * callback, health and metrics, and the webhook receiver it is given. Nothing listens until the
 * caller serves it.
 */
export function createWeb(deps: WebDeps): express.Express {
  return createWebApp({ ...deps, connectView: (completion) => connectResultView(deps, completion) });
}
