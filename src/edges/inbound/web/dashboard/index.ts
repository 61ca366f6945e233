export { createDashboardRouter } from './router';
export type { DashboardRouterDeps } from './router';
