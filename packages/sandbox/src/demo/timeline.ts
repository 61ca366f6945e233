/**
 * The demo's timeline: one aligned line per step with the real time since the start, the story's
 * day (the clock the service sees, which jumps when the demo skips days), a mark, the step, and
 * how long it took in ms; details indented under it. Colours only when asked (a TTY).
 */

export interface TimelineSink {
  write(text: string): void;
}

export interface TimelineOptions {
  out: TimelineSink;
  color: boolean;
  /** Real time in ms (`performance.now` when absent). */
  now?: () => number;
  /** The story's day number, shown in the second column. */
  storyDay?: () => number;
  /** Once aborted, no further step starts (Ctrl-C during the story). */
  signal?: AbortSignal;
}

/** A step whose outcome was not the one the story expects: the demo stops and exits non-zero. */
export class DemoStepError extends Error {
  override get name(): string {
    return 'DemoStepError';
  }
}

/** Thrown instead of starting a step once the demo is being stopped. */
export class DemoStoppedError extends Error {
  constructor() {
    super('the demo was stopped');
  }

  override get name(): string {
    return 'DemoStoppedError';
  }
}

/** Throws a {@link DemoStepError} with `message` unless `condition` holds. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new DemoStepError(message);
}

export interface StepHandle {
  /** Replaces the step's label, e.g. with what it measured ("… Platinum in 142 ms"). */
  title(label: string): void;
  /** A line under the step. */
  detail(text: string): void;
  /** Lines under the step, indented further (a report). */
  block(text: string): void;
}

export interface Timeline {
  /** Prints the header: title and column names. */
  header(title: string, subtitle: string[]): void;
  section(title: string): void;
  /**
   * Runs `fn`, then prints its line with the time it took; a throw prints ✗ and is rethrown.
   * `always`: runs even after the demo was stopped (the clean-up).
   */
  step<T>(label: string, fn: (step: StepHandle) => Promise<T>, options?: { always?: boolean }): Promise<T>;
  /** A line without a timing (the clock moves, the story ends). */
  event(label: string, details?: string[]): void;
  /** Plain text under everything else (the interactive part). */
  say(text?: string): void;
  /** ms since the timeline started. */
  elapsedMs(): number;
  readonly color: boolean;
}

const LABEL_WIDTH = 68;

const ANSI = {
  reset: '\u001b[0m',
  bold: '\u001b[1m',
  dim: '\u001b[2m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
} as const;
type Style = Exclude<keyof typeof ANSI, 'reset'>;

/** `1,234 ms`. */
export function formatMs(ms: number): string {
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

export function createTimeline(options: TimelineOptions): Timeline {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const paint = (style: Style, text: string) => (options.color ? `${ANSI[style]}${text}${ANSI.reset}` : text);
  const write = (line: string) => options.out.write(`${line}\n`);
  const gutter = ' '.repeat(19);

  const columns = (mark: string, label: string, took: string | null): string => {
    const at = formatSeconds(now() - started).padStart(8);
    const day = options.storyDay ? `day ${options.storyDay()}`.padEnd(7) : ''.padEnd(7);
    const text = took === null ? label : label.length >= LABEL_WIDTH ? `${label} ` : label.padEnd(LABEL_WIDTH);
    return `${paint('dim', at)}  ${paint('dim', day)} ${mark} ${text}${took === null ? '' : took.padStart(10)}`;
  };

  const detailLines = (lines: Array<{ text: string; indent: number }>) => {
    for (const { text, indent } of lines) {
      for (const part of text.split('\n')) write(`${gutter}${' '.repeat(indent)}${paint('dim', part)}`);
    }
  };

  return {
    color: options.color,
    elapsedMs: () => now() - started,

    header(title, subtitle) {
      write(paint('bold', title));
      for (const line of subtitle) write(paint('dim', line));
      write('');
      write(paint('dim', `${'real'.padStart(8)}  ${'story'.padEnd(7)}   ${'step'.padEnd(LABEL_WIDTH)}${'took'.padStart(10)}`));
    },

    section(title) {
      write('');
      write(`${gutter}${paint('bold', paint('cyan', title))}`);
    },

    async step(label, fn, stepOptions = {}) {
      if (options.signal?.aborted && !stepOptions.always) throw new DemoStoppedError();
      const begin = now();
      let current = label;
      const lines: Array<{ text: string; indent: number }> = [];
      const handle: StepHandle = {
        title: (text) => {
          current = text;
        },
        detail: (text) => lines.push({ text, indent: 2 }),
        block: (text) => lines.push({ text, indent: 4 }),
      };
      try {
        const value = await fn(handle);
        write(columns(paint('green', '✓'), current, formatMs(now() - begin)));
        detailLines(lines);
        return value;
      } catch (error) {
        write(columns(paint('red', '✗'), current, formatMs(now() - begin)));
        detailLines(lines);
        const message = error instanceof Error ? error.message : String(error);
        for (const part of message.split('\n')) write(`${gutter}  ${paint('red', part)}`);
        throw error;
      }
    },

    event(label, details = []) {
      write(columns(paint('yellow', '»'), label, null));
      detailLines(details.map((text) => ({ text, indent: 2 })));
    },

    say(text = '') {
      write(text);
    },
  };
}
