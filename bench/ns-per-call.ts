// Time a synchronous call in this process: a warm-up, then five rounds; the median in ns per call.
export function nsPerCall(label: string, calls: number, once: () => unknown): number {
  once();
  for (let i = 0; i < calls / 5; i++) once(); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) once();
    rounds.push(Number(process.hrtime.bigint() - t) / calls);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${label}: ${rounds[2].toFixed(0)} ns per call (median of 5 rounds of ${calls}; ${rounds.map((x) => x.toFixed(0)).join(' ')})`);
  return rounds[2];
}
