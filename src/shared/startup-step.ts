/**
 * Which part of start-up failed: the same error (a refused connection, a DNS failure) means a
 * different variable to fix depending on whom Tierlink was talking to. The composition root wraps
 * each step; the command line turns the failure into one line naming the variable
 * (src/edges/outbound/observability/explain-failure.ts).
 */
export type StartupStep = 'database' | 'web' | 'discord' | 'patreon';

export class StartupStepError extends Error {
  constructor(
    readonly step: StartupStep,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }

  override get name(): string {
    return `StartupStepError[${this.step}]`;
  }
}

/** Runs one step of start-up; a failure comes out as a {@link StartupStepError} naming the step. */
export async function inStep<T>(step: StartupStep, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof StartupStepError ? error : new StartupStepError(step, error);
  }
}
