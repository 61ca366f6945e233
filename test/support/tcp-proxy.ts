/**
 * A TCP proxy in front of a server (PostgreSQL) whose link a test can cut and restore: a real
 * outage for a real client. The soak's own (soak/processes.ts), one implementation for both.
 */
export { type TcpProxy, startTcpProxy as createTcpProxy } from '../../soak/processes';
