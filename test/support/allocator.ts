// The allocator settings the gateway ships with: glibc's MALLOC_* variables the Dockerfile's ENV
// sets (why: the Dockerfile), for tests that measure the gateway's memory as it runs in production.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/** The Dockerfile's MALLOC_* variables, name → value. */
export function shippedAllocatorEnv(): Record<string, string> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  return Object.fromEntries([...text.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}
