import { createDemo } from '@tierlink/sandbox/demo';
import { runCommand } from '../src/cli/cli-support';
import { createLogger } from '../src/edges/outbound/observability/logger';
import { startTierlinkUnderDemo } from './tierlink-under-demo';

/**
 * `npm run demo [-- --once]`: no configuration. Plays the story against the stand-ins and prints
 * its timeline; then keeps serving (a link page for a browser) until Ctrl-C, or with `--once`
 * exits: 0 when every step had its expected outcome, 1 otherwise, 130 when stopped mid-story.
 */
async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--once');
  if (unknown.length > 0) {
    process.stderr.write(
      `npm run demo: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(' ')} (the only option is --once)\n`,
    );
    return 2;
  }
  const demo = createDemo({
    once: argv.includes('--once'),
    out: process.stdout,
    color: process.stdout.isTTY === true,
    input: process.stdin,
    startService: startTierlinkUnderDemo,
    createLogger: (destination) => createLogger({ level: 'info', destination }),
  });
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    demo.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const result = await demo.run();
  return result.outcome === 'ok' ? 0 : result.outcome === 'stopped' ? 130 : 1;
}

runCommand(
  'npm run demo',
  async () => process.exit(await main(process.argv.slice(2))),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
