/** Plain HTTP against the sandbox, the way any client would speak to the service. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON; `any` because assertions walk arbitrary documents (a JSON boundary). */
  body: any;
}

export async function getJson(baseUrl: string, pathAndQuery: string, token?: string): Promise<RawAnswer> {
  const res = await fetch(`${baseUrl}${pathAndQuery}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}

export async function sendJson(baseUrl: string, method: 'POST' | 'PATCH', path: string, token: string, body: unknown): Promise<RawAnswer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}

export async function postForm(
  baseUrl: string,
  path: string,
  form: Record<string, string>,
  contentType = 'application/x-www-form-urlencoded',
): Promise<RawAnswer> {
  const body = contentType === 'application/json' ? JSON.stringify(form) : new URLSearchParams(form).toString();
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
