// Whether an address or host name is this machine's loopback: 127.0.0.0/8, ::1 (and IPv4-mapped
// 127.x), "localhost". Anything else counts as reachable from the network.
import { isIP } from 'node:net';

export function isLoopback(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0{0,4}:){5}ffff:127\./.test(h) || /^::ffff:127\./.test(h);
  return false;
}
