// Forwarder processes report their CPU time (user + system, µs) when the parent asks over IPC.
export function reportCpuOnRequest(): void {
  process.on('message', (m) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ cpu: u.user + u.system });
    }
  });
}
