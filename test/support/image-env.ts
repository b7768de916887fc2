// The environment the gateway's image sets: the final stage's ENV instructions of the Dockerfile,
// read with dockerfile-ast (comments and continuation lines as Docker reads them). Tests use it to
// run the gateway as it runs in production: its allocator settings (why: the Dockerfile) and its
// GATEWAY_* configuration.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { ROOT } from './processes.js';

/** The image's ENV, name → value (a later instruction wins, as in Docker). */
export function imageEnv(): Record<string, string> {
  const dockerfile = DockerfileParser.parse(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const stages = dockerfile.getFROMs();
  const last = stages[stages.length - 1].getRange().start.line;
  const envs = dockerfile.getENVs().filter((e) => e.getRange().start.line > last);
  return Object.fromEntries(envs.flatMap((e) => e.getProperties().map((p) => [p.getName(), p.getValue() ?? ''])));
}

/** The image's glibc allocator variables (MALLOC_*), name → value. */
export function shippedAllocatorEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(imageEnv()).filter(([name]) => name.startsWith('MALLOC_')));
}
