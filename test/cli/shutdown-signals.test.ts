import { EventEmitter } from 'node:events';
import { handleShutdownSignals } from '../../src/cli/shutdown-signals';
import { silentLogger } from '../../src/shared/logger';

function setup(stop: () => Promise<void>) {
  const signals = new EventEmitter();
  const exits: number[] = [];
  handleShutdownSignals({ signals, stop, exit: (code) => exits.push(code), logger: silentLogger });
  return { signals, exits };
}

test('one signal stops gracefully, then exits 0', async () => {
  let stopped = 0;
  const { signals, exits } = setup(async () => {
    stopped++;
  });
  signals.emit('SIGTERM');
  await new Promise((r) => setImmediate(r));
  expect([stopped, exits]).toEqual([1, [0]]);
});

test('a second signal during the stop exits 1 at once, without a second stop', () => {
  let stops = 0;
  const { signals, exits } = setup(() => {
    stops++;
    return new Promise(() => {});
  });
  signals.emit('SIGINT');
  expect(exits).toEqual([]);
  signals.emit('SIGINT');
  expect([stops, exits]).toEqual([1, [1]]);
});

test('a failed stop exits 1', async () => {
  const { signals, exits } = setup(() => Promise.reject(new Error('database gone')));
  signals.emit('SIGTERM');
  await new Promise((r) => setImmediate(r));
  expect(exits).toEqual([1]);
});
