import type { Config } from '../../../config';
import type { Logger } from '../../../shared/logger';
import { type Database, openDatabase } from './database';

/** The database the configuration names: PostgreSQL with DATABASE_URL, else PGlite in DATA_DIR. */
export function openConfiguredDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, logger: Logger): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({ engine: 'postgres', url: config.databaseUrl, logger })
    : openDatabase({ engine: 'pglite', dataDir: config.dataDir, logger });
}
