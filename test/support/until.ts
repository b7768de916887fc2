// Waiting for a condition another process or thread brings about (an upstream subscription made, a
// key forgotten): polled every 20 ms, an error past `ms`.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(f: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(20);
  }
}
