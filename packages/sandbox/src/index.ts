/**
 * @tierlink/sandbox: stand-ins of the membership service (Patreon) and of Discord that speak HTTP
 * like the real ones, and the demo story. The product never imports this package (a lint rule
 * enforces it); the tests, the benchmarks and `npm run demo` wire the product to it.
 */
export { discordInteractionsEnvironment, standInEnvironment } from './service-environment';
export {
  type Clock,
  type ManualClock,
  type ShiftableClock,
  createManualClock,
  createShiftableClock,
  systemClock,
  DAY,
  HOUR,
  MINUTE,
} from './support/clock';
export { type ReceivedDelivery, type WebhookReceiver, startWebhookReceiver } from './recording-endpoint';
