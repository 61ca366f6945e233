import type { Command } from '../command';
import { allowRoleCommand } from './allow-role';
import { auditCommand } from './audit';
import { compCommand } from './comp';
import { connectCommand } from './connect';
import { doctorCommand } from './doctor';
import { linkCommand } from './link';
import { mapCommand, unmapCommand } from './map';
import { settingsCommand } from './settings';
import { statusCommand } from './status';
import { syncCommand } from './sync';
import { tiersCommand } from './tiers';
import { unlinkCommand } from './unlink';
import { privacyCommand } from './privacy';

/** Every slash command of docs/contract.md, registered in this order. */
export const COMMANDS: readonly Command[] = [
  linkCommand,
  unlinkCommand,
  statusCommand,
  connectCommand,
  tiersCommand,
  mapCommand,
  unmapCommand,
  compCommand,
  allowRoleCommand,
  settingsCommand,
  syncCommand,
  doctorCommand,
  auditCommand,
  privacyCommand,
];
