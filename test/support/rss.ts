// The resident set of another process, as the tests that bound a gateway's memory read it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Resident set of process `pid` in bytes: /proc/<pid>/status VmRSS on Linux, else ps. */
export function rssBytes(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch { /* not Linux */ }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}

export const rssMiB = (pid: number): number => rssBytes(pid) / (1024 * 1024);
