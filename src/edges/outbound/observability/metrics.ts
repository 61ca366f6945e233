import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'tierlink_' });
  const registers = [registry];
  const metrics = {
    registry,
    httpRequests: new Counter({
      name: 'tierlink_http_requests_total',
      help: 'HTTP requests served, by route and status class',
      labelNames: ['route', 'status'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'tierlink_webhook_deliveries_total',
      help: 'Webhook deliveries received, by result (accepted, replay: acknowledged and dropped, rejected_signature, rejected_body, too_large, rate_limited: refused unread, failed: verified but not stored)',
      labelNames: ['result'] as const,
      registers,
    }),
    webhookProcessingSeconds: new Histogram({
      name: 'tierlink_webhook_processing_seconds',
      help: 'Time from receipt of a delivery to the end of its processing',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
      registers,
    }),
    webhookRetries: new Counter({
      name: 'tierlink_webhook_retries_total',
      help: 'Delivery processing attempts that failed and were scheduled again',
      registers,
    }),
    webhookDeadLetters: new Counter({
      name: 'tierlink_webhook_dead_letters_total',
      help: 'Deliveries given up after the last attempt',
      registers,
    }),
    webhookUnhealthy: new Counter({
      name: 'tierlink_webhook_unhealthy_total',
      help: 'Times a registered webhook was found paused or failing, by state',
      labelNames: ['state'] as const,
      registers,
    }),
    roleChanges: new Counter({
      name: 'tierlink_role_changes_total',
      help: 'Role changes, by kind (add, remove, forget, adopt) and outcome (applied, failed, blocked, held)',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    }),
    syncRuns: new Counter({ name: 'tierlink_sync_runs_total', help: 'Full syncs, by status', labelNames: ['status'] as const, registers }),
    syncDurationSeconds: new Histogram({
      name: 'tierlink_sync_duration_seconds',
      help: 'Duration of full syncs',
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    syncProgress: new Gauge({
      name: 'tierlink_sync_progress',
      help: 'The running full sync of each server: members_read (of the server), changes_planned, changes_applied (failed included), estimated_end_seconds (Unix time; 0 until known); all 0 when no sync runs',
      labelNames: ['guild', 'what'] as const,
      registers,
    }),
    discordRateLimited: new Counter({
      name: 'tierlink_discord_rate_limited_total',
      help: 'Discord requests that waited on a rate limit (429 or an exhausted bucket)',
      labelNames: ['scope'] as const,
      registers,
    }),
    discordPacedWaits: new Counter({
      name: 'tierlink_discord_paced_waits_total',
      help: 'Times a Discord request waited for room in its bucket or the global limit before being sent, by lane (interactive, bulk)',
      labelNames: ['lane'] as const,
      registers,
    }),
    discordMemberLookups: new Counter({
      name: 'tierlink_discord_member_lookups_total',
      help: "Lookups of a member's roles, by result: hit (from the gateway-kept cache), miss (read: member unknown), untrusted (read: this instance does not receive the guild's events)",
      labelNames: ['result'] as const,
      registers,
    }),
    patreonErrors: new Counter({
      name: 'tierlink_patreon_errors_total',
      help: 'Failed requests to the membership service, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    unreadableMembers: new Counter({
      name: 'tierlink_unreadable_members_total',
      help: 'Reads of a member the service answered with a value Tierlink cannot understand (its roles were left as they are), by source (sync, webhook, link)',
      labelNames: ['source'] as const,
      registers,
    }),
    links: new Counter({
      name: 'tierlink_links_total',
      help: 'Completed /link flows, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
    joins: new Counter({
      name: 'tierlink_joins_total',
      help: 'Join page flows that ended, by outcome (added, already_member, not_patron, banned, server_full, …)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    unhandledRejections: new Counter({
      name: 'tierlink_unhandled_rejections_total',
      help: 'Promise rejections nothing handled (logged; the process keeps serving): each one is a bug',
      registers,
    }),
    queueDepth: new Gauge({
      name: 'tierlink_queue_depth',
      help: 'Durable work waiting, by queue',
      labelNames: ['queue'] as const,
      registers,
    }),
  };
  return metrics;
}

/**
 * Every metric Tierlink exports at `GET /metrics`, on a registry of its own (never prom-client's
 * global one: two instances in one test process must not share counters).
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'status'>;
  webhookDeliveries: Counter<'result'>;
  webhookProcessingSeconds: Histogram<string>;
  webhookRetries: Counter<string>;
  webhookDeadLetters: Counter<string>;
  webhookUnhealthy: Counter<'state'>;
  roleChanges: Counter<'kind' | 'outcome'>;
  syncRuns: Counter<'status'>;
  syncDurationSeconds: Histogram<string>;
  syncProgress: Gauge<'guild' | 'what'>;
  discordRateLimited: Counter<'scope'>;
  discordPacedWaits: Counter<'lane'>;
  discordMemberLookups: Counter<'result'>;
  patreonErrors: Counter<'kind'>;
  unreadableMembers: Counter<'source'>;
  links: Counter<'outcome'>;
  joins: Counter<'outcome'>;
  unhandledRejections: Counter<string>;
  queueDepth: Gauge<'queue'>;
}
