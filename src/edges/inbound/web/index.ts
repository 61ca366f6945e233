import type express from 'express';
import type { Dashboard } from '../../../app/dashboard';
import { type WebAppDeps, createWebApp } from './app';
import { type ConnectViewDeps, connectResultView } from './connect-result-view';
import { createDashboardRouter } from './dashboard';

export type WebDeps = Omit<WebAppDeps, 'connectView' | 'dashboardRouter'> &
  ConnectViewDeps & {
    /** The dashboard's services. */
    dashboard: Dashboard;
  };

/**
 * The web side of Tierlink: the express app with the pages of `/link` and `/connect`, the OAuth
 * callback, health and metrics, and the webhook receiver it is given. Nothing listens until the
 * caller serves it.
 */
export function createWeb(deps: WebDeps): express.Express {
  return createWebApp({
    ...deps,
    connectView: (completion, t) => connectResultView(deps, completion, t),
    dashboardRouter: createDashboardRouter({ dashboard: deps.dashboard, logger: deps.logger }),
  });
}
