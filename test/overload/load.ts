// Load for the overload tests: bursts of concurrent requests over their own connections (undici,
// one connection per request in flight), with each request's status, Retry-After and latency.
import { Agent, request } from 'undici';

export interface Result { status: number; retryAfter?: string; ms: number; error?: string }

/**
 * `n` GETs of `path` over up to `n` connections, sent at once (or spread evenly over `spreadMs`:
 * clients arriving within that time); resolves when all have answered.
 */
export async function burst(base: string, path: string, n: number, headers: Record<string, string> = {}, spreadMs = 0): Promise<Result[]> {
  const agent = new Agent({ connections: n, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, connect: { timeout: 30_000 } });
  const start = performance.now();
  const at = async (i: number) => {
    const due = start + (spreadMs * i) / n - performance.now();
    if (due > 1) await new Promise((r) => setTimeout(r, due));
    return one(agent, base, path, headers);
  };
  try {
    return await Promise.all(Array.from({ length: n }, (_, i) => at(i)));
  } finally {
    await agent.close();
  }
}

/** One GET on `agent`; a transport failure is status 0. */
export async function one(agent: Agent, base: string, path: string, headers: Record<string, string> = {}): Promise<Result> {
  const t0 = performance.now();
  try {
    const r = await request(`${base}${path}`, { dispatcher: agent, headers });
    await r.body.dump();
    const ra = r.headers['retry-after'];
    return { status: r.statusCode, retryAfter: Array.isArray(ra) ? ra[0] : ra, ms: performance.now() - t0 };
  } catch (e) {
    return { status: 0, ms: performance.now() - t0, error: (e as { code?: string }).code ?? String(e) };
  }
}

/** GETs of `path` by `clients` clients, each sending its next one as soon as the last answered, for `ms`. */
export async function steady(base: string, path: string, clients: number, ms: number, headers: Record<string, string> = {}): Promise<Result[]> {
  const agent = new Agent({ connections: clients, pipelining: 1 });
  const out: Result[] = [];
  const end = performance.now() + ms;
  try {
    await Promise.all(Array.from({ length: clients }, async () => {
      while (performance.now() < end) out.push(await one(agent, base, path, headers));
    }));
  } finally {
    await agent.close();
  }
  return out;
}

export function percentile(results: Result[], p: number): number {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  return ms[Math.min(ms.length - 1, Math.ceil((p / 100) * ms.length) - 1)];
}

/** Answers by status; transport failures by their error code ("UND_ERR_SOCKET", …). */
export function count(results: Result[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) out[r.error ?? r.status] = (out[r.error ?? r.status] ?? 0) + 1;
  return out;
}
