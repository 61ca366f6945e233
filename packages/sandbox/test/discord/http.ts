import type { DiscordSandbox } from '@tierlink/sandbox/discord';

/** One answer of the stand-in, its body parsed when there is one. */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface CallOptions {
  /** JSON body. */
  body?: unknown;
  /** A form body (application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  /** `Authorization` header: the bot's by default, none with null. */
  auth?: string | null;
  reason?: string;
  headers?: Record<string, string>;
}

/** A raw HTTP request to the stand-in's API under `/api/v10`, as a client other than @discordjs/rest sends it. */
export async function call(sandbox: DiscordSandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.auth === undefined ? `Bot ${sandbox.botToken}` : options.auth;
  if (auth !== null) headers.Authorization = auth;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  } else if (options.form !== undefined) {
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  if (options.reason !== undefined) headers['X-Audit-Log-Reason'] = encodeURIComponent(options.reason);
  const res = await fetch(`${sandbox.apiBaseUrl}/v10${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The Discord error code of an answer's body. */
export function codeOf(answer: Answer): number | undefined {
  return (answer.body as { code?: number } | undefined)?.code;
}
