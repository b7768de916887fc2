// Timed assertions compare with a reference measured in the same test, so that a busy machine's
// scheduling delay (other work on the cores, `npm run test:load`'s busy loops) is not taken for the
// gateway's: the bound is the claim plus what the same process saw when the gateway was not involved.

/** Wall time (ms) of `work`, with its value. */
export async function timed<T>(work: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
}

/** This process's scheduling delay right now: the worst lateness of a 10 ms interval over `ms` of idling. */
export async function idleLag(ms = 300): Promise<number> {
  let worst = 0;
  let expected = performance.now() + 10;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - expected);
      expected = now + 10;
    }, 10);
    setTimeout(() => { clearInterval(timer); resolve(); }, ms);
  });
  return worst;
}
