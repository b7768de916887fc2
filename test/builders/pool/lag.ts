// Event-loop responsiveness while something runs: the worst lateness of a 10 ms interval.
export async function withLagProbe<T>(fn: () => Promise<T>): Promise<{ value: T; maxLagMs: number }> {
  let maxLagMs = 0;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - expected);
    expected = now + 10;
  }, 10);
  try {
    const value = await fn();
    return { value, maxLagMs };
  } finally {
    clearInterval(timer);
  }
}
