import type { Logger } from '../shared/logger';

export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/**
 * SIGTERM or SIGINT starts a graceful stop and exits 0 when it is done (1 if it failed); a second
 * signal while stopping exits at once with 1, for an operator who does not want to wait.
 */
export function handleShutdownSignals(deps: {
  signals: SignalSource;
  stop(): Promise<void>;
  exit(code: number): void;
  logger: Logger;
}): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      deps.logger.warn({ signal }, 'second signal: exiting now');
      deps.exit(1);
      return;
    }
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    deps.stop().then(
      () => deps.exit(0),
      (error) => {
        deps.logger.error({ err: error }, 'shutdown failed');
        deps.exit(1);
      },
    );
  };
  deps.signals.on('SIGTERM', () => onSignal('SIGTERM'));
  deps.signals.on('SIGINT', () => onSignal('SIGINT'));
}
