import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { DAY, createShiftableClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { type Live, startLive } from './live';
import { type StoryResources, playStory } from './story';
import { DemoStepError, type TimelineSink, createTimeline, formatMs } from './timeline';
import { type StartServiceUnderDemo, dataDirIn } from './world';

export interface DemoOptions {
  /** Exit after the story (CI) instead of serving until stopped. */
  once: boolean;
  out: TimelineSink;
  /** ANSI colours (stdout is a terminal). */
  color: boolean;
  /** A terminal's input: Enter prints a fresh link page while serving. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the temporary folder is made; the OS's temporary folder when absent. */
  tmpRoot?: string;
  /** Starts the service the demo shows (the product's wiring: `demo/` at the repository root). */
  startService: StartServiceUnderDemo;
  /** The log of the service and the stand-ins, writing to `destination` (the product passes its own, which redacts secrets). */
  createLogger?: (destination: { write(line: string): void }) => Logger;
}

export interface DemoResult {
  /** `ok`: the story played and everything stopped; `failed`: a step went wrong; `stopped`: stopped before the story ended. */
  outcome: 'ok' | 'failed' | 'stopped';
  /** How long the story took (ms), when it finished. */
  storyMs: number | null;
  /** The temporary folder, kept after a failure for its log; null once removed. */
  keptDir: string | null;
}

export interface Demo {
  /** Plays the story; unless `once`, then serves until {@link Demo.stop}. Cleans up in every case. */
  run(): Promise<DemoResult>;
  /** Ends the demo: at once during the story, or the serving afterwards. */
  stop(): void;
}

export function createDemo(options: DemoOptions): Demo {
  const abort = new AbortController();
  const stopped = new Promise<'stopped'>((resolve) => {
    abort.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
  });

  async function run(): Promise<DemoResult> {
    const dir = fs.mkdtempSync(path.join(options.tmpRoot ?? os.tmpdir(), 'tierlink-demo-'));
    const logFile = path.join(dir, 'tierlink.log');
    const file = pino.destination({ dest: logFile, sync: true });
    // A line logged after the file is closed (a straggling timer) is dropped, not thrown.
    let logOpen = true;
    const destination = { write: (line: string) => void (logOpen && file.write(line)) };
    const logger = options.createLogger ? options.createLogger(destination) : pino({ level: 'info' }, destination);
    const clock = createShiftableClock();
    const timeline = createTimeline({
      out: options.out,
      color: options.color,
      storyDay: () => Math.floor(clock.offsetMs() / DAY),
      signal: abort.signal,
    });
    const resources: StoryResources = {};
    let live: Live | null = null;
    let outcome: DemoResult['outcome'] = 'ok';
    let storyMs: number | null = null;

    timeline.header('Tierlink demo: the real service against local stand-ins of the membership service and of Discord', [
      `Temporary folder ${dir} (embedded database, secret key, the service’s log in tierlink.log)`,
    ]);
    const story = playStory(timeline, { clock, logger, dataDir: dataDirIn(dir), startService: options.startService }, resources).then(
      () => 'played' as const,
      (error: unknown) => ({ error }),
    );
    const first = await Promise.race([story, stopped]);
    if (first === 'played') {
      storyMs = timeline.elapsedMs();
      timeline.say();
      timeline.say(`The whole story took ${formatMs(storyMs)}.`);
      if (!options.once && resources.world && resources.service) {
        try {
          live = await startLive({
            timeline,
            world: resources.world,
            service: resources.service,
            logFile,
            ...(options.input ? { input: options.input } : {}),
          });
          await stopped;
          timeline.say();
        } catch (error) {
          outcome = 'failed';
          timeline.say(`The service could not keep serving: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } else if (first === 'stopped') {
      outcome = 'stopped';
      timeline.say();
      timeline.say('Stopped before the story ended.');
    } else {
      outcome = 'failed';
      const { error } = first;
      if (!(error instanceof DemoStepError)) {
        timeline.say(error instanceof Error ? (error.stack ?? error.message) : String(error));
      }
    }

    live?.stop();
    const keep = outcome === 'failed';
    const label = keep ? 'Stopped the service and the stand-ins' : 'Stopped the service and the stand-ins; temporary folder removed';
    const cleanUp = async () => {
      const errors: unknown[] = [];
      const stopAll = async () => {
        await resources.service?.stop().catch((e: unknown) => errors.push(e));
        await resources.world?.close().catch((e: unknown) => errors.push(e));
      };
      // Closing first makes a step still in flight (Ctrl-C mid-story) fail fast; no later step starts.
      await stopAll();
      await story;
      // Whatever that step started meanwhile.
      await stopAll();
      logOpen = false;
      file.end();
      if (!keep) fs.rmSync(dir, { recursive: true, force: true });
      if (errors.length > 0) throw errors[0];
    };
    try {
      await timeline.step(label, cleanUp, { always: true });
    } catch {
      outcome = 'failed';
    }
    if (keep) timeline.say(`The service’s log and database are kept in ${dir}`);
    return { outcome, storyMs, keptDir: keep ? dir : null };
  }

  return { run, stop: () => abort.abort() };
}
