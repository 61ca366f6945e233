/**
 * The whole schema, one module per area; drizzle-kit reads it from here (drizzle.config.ts), and
 * the code imports every table from here. Secrets (creator tokens, webhook secrets) are stored only
 * encrypted (`*_enc`, see src/edges/outbound/store/secret-box.ts); one-time link tokens only as SHA-256
 * hashes. Patron OAuth tokens are never stored.
 */

export * from './campaigns';
export * from './guilds';
export * from './links';
export * from './member-snapshots';
export * from './webhooks';
export * from './jobs';
export * from './ledger';
export * from './sync-runs';
export * from './dashboard-sessions';
export * from './app-state';
export * from './instances';
export * from './channels';
export * from './comps';
export * from './role-allowances';
export * from './member-list';
export * from './kofi';
