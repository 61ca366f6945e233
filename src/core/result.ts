/**
 * Expected failures are values: a function that can fail in a way the caller must handle returns a
 * `Result`, and the edge (a slash command, a page) turns the error into a message for people.
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });
