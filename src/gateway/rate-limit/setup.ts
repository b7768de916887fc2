// Wire rate limiting from the configuration: on by default for every service whose catalogue
// declares rateLimits; counters in this process, or in Redis (--rate-limit-store redis://…).
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import { rateLimitHook, type RateLimiting } from './hook.js';
import { memoryStore, redisStore, type FailMode } from './store.js';

export type { RateLimiting };

export interface RateLimitConfig {
  rateLimit: boolean;
  /** 'memory' or a redis:// (rediss://) URL. */
  rateLimitStore: string;
  rateLimitFail: FailMode;
}

export function rateLimiting(config: RateLimitConfig, views: ReleaseView[], logger: Logger): RateLimiting {
  const off: RateLimiting = { hooks: [], limiterGauges: () => ({}), close: async () => {} };
  if (!config.rateLimit) return off;
  const limited = views.filter((v) => v.service.kind === 'proxy' && v.service.rateLimits?.length);
  if (!limited.length) return off;
  const store = config.rateLimitStore === 'memory' ? memoryStore() : redisStore(config.rateLimitStore, config.rateLimitFail, logger);
  const limits = rateLimitHook(views, store, config.rateLimitFail, logger);
  if (limits.hooks.length) {
    logger.info(`rate limits of ${[...new Set(limited.map((v) => v.service.id))].join(', ')} enforced, counted in ${store.name}${store.name === 'memory' ? '' : ` (if unreachable: fail ${config.rateLimitFail})`}`);
  }
  return limits;
}
