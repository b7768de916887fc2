// Start a gateway in-process for a test, pinned at a release and pointed at a local upstream.
import { createHmac } from 'node:crypto';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway, type StartOptions } from '../../src/server.js';

/**
 * A test that does not study stopping closes its gateway at once (the default --accept-grace waits
 * 250 ms for a balancer that is not there); one that does gives --accept-grace itself.
 */
export const quickStop = (extra: string[]): string[] => (extra.includes('--accept-grace') ? [] : ['--accept-grace', '0']);

export async function gatewayAt(release: string | undefined, upstream: string, extra: string[] = [], opts: StartOptions = {}): Promise<RunningGateway> {
  const args = ['--port', '0', '--upstream', `exchange=${upstream}`, ...localGithub(extra, upstream), ...(release ? ['--release', release] : []), ...quickStop(extra), ...extra];
  // The environment stays out of it (a developer's GATEWAY_* must not change a test), except the
  // builder priority test/run.mjs sets for every file (see there).
  const env = process.env.GATEWAY_BUILDER_PRIORITY ? { GATEWAY_BUILDER_PRIORITY: process.env.GATEWAY_BUILDER_PRIORITY } : {};
  return startGateway(readConfig(args, env), { logger: createLogger('silent'), ...opts });
}

/**
 * The default catalogue's github service goes to `local` unless the test names its upstream or
 * another catalogue: a test
 * never reaches for api.github.com (nor warns that it cannot).
 */
export function localGithub(args: readonly string[], local: string | undefined): string[] {
  if (!local || args.includes('--catalogue') || args.some((a) => /^github(\.rest)?=/.test(a))) return [];
  return ['--upstream', `github=${local}`];
}

export const API_KEY = 'test-api-key-0123456789';
export const SECRET = 'test-secret-abcdefghijklmnopqrstuvwxyz';

/** Sign a query string the way exchange clients do (HMAC-SHA256 over query + body, hex). */
export function signed(query: string, body = '', secret = SECRET): string {
  const sig = createHmac('sha256', secret).update(query + body).digest('hex');
  return `${query}&signature=${sig}`;
}

export function ts(): string {
  return `timestamp=${Date.now()}`;
}
