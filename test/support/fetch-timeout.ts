// Every fetch() a test makes is bounded: one that passes no signal of its own gets
// AbortSignal.timeout(FETCH_LIMIT_MS), so a gateway that never answers fails the test with an
// error naming the URL instead of hanging it until the runner's per-file limit. Installed by
// ./uvu.ts, which every test file imports. The timer is unref'd: it never keeps a process alive.
export const FETCH_LIMIT_MS = 30_000;

const original = globalThis.fetch;
globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
  if (init?.signal) return original(input, init);
  return original(input, { ...init, signal: AbortSignal.timeout(FETCH_LIMIT_MS) }).catch((e: Error) => {
    if (e?.name !== 'TimeoutError') throw e;
    throw new Error(`fetch ${input instanceof Request ? input.url : String(input)}: no answer in ${FETCH_LIMIT_MS} ms`, { cause: e });
  });
};
