import express, { type Router } from 'express';
import { sendDashboardPage } from './http';
import { renderNotice } from './render-entry';

export { createDashboardRouter } from './router';
export type { DashboardRouterDeps } from './router';

/** `/dashboard` while DISCORD_CLIENT_SECRET is not set: one page that says how to turn it on. */
export function dashboardOffRouter(): Router {
  const router = express.Router();
  router.use((_req, res) =>
    sendDashboardPage(
      res,
      404,
      renderNotice({
        title: 'The dashboard is off',
        viewer: null,
        tone: 'info',
        lines: [
          'This Tierlink runs without its dashboard.',
          'Its operator turns it on by setting DISCORD_CLIENT_SECRET (Discord Developer Portal → OAuth2) and adding the redirect URI $PUBLIC_URL/dashboard/callback there.',
        ],
      }),
    ),
  );
  return router;
}
