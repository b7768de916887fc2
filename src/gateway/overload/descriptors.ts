// The descriptor limit and the connection cap it allows. Node raises its soft RLIMIT_NOFILE to the
// hard one at start-up (PlatformInit, as nginx's worker_rlimit_nofile does), so there is nothing
// left to raise from JavaScript (Node has no setrlimit; prlimit(1) on our own pid would change
// nothing): what /proc/self/limits says now is what this process may open. Connections are held
// below it, leaving room for the upstream pool's sockets, files and the builder threads.
import { readFileSync } from 'node:fs';

export interface DescriptorLimit {
  soft: number;
  hard: number;
}

/** Descriptors held back besides the upstream pool: log and catalogue files, the admin's, node's own. */
const FILES = 64;
/** Per builder thread (its message ports and the handles of the thread itself). */
const PER_THREAD = 8;

/** This process's limit on open files, or undefined where /proc is not there (not Linux). */
export function descriptorLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): DescriptorLimit | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  const n = (s: string) => (s === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(s));
  return { soft: n(m[1]), hard: n(m[2]) };
}

export interface ConnectionCap {
  cap: number;
  /** The figures the cap follows from, for the start-up log line. */
  why: string;
  /** Set when a given cap is above what the descriptors allow (the accept would fail first). */
  tooHigh?: number;
}

/** The default connection cap under `limit`: what remains after the upstream pool, files and builder threads. */
export function connectionCap(limit: DescriptorLimit | undefined, upstreamConnections: number, builderThreads: number, given: number): ConnectionCap {
  if (!limit) return { cap: given || 10_000, why: `${given ? '--max-connections' : 'fixed default'}; descriptor limit unknown (no /proc/self/limits)` };
  const reserve = upstreamConnections + PER_THREAD * builderThreads + FILES;
  const derived = Math.max(Math.floor(limit.soft / 4), limit.soft - reserve);
  const why = `${given ? '--max-connections' : 'derived'}; descriptor limit ${limit.soft} (hard ${limit.hard}) less ${reserve} held back for ${upstreamConnections} upstream sockets, ${FILES} files and ${PER_THREAD} × ${builderThreads} builder threads = ${derived}`;
  return { cap: given || derived, why, tooHigh: given > derived ? derived : undefined };
}
