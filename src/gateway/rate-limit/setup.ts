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
  /** Processes serving the port (--workers): with the in-process store each keeps to its share. */
  workers: number;
}

export function rateLimiting(config: RateLimitConfig, views: ReleaseView[], logger: Logger): RateLimiting {
  const off: RateLimiting = { hooks: [], limiterGauges: () => ({}), close: async () => {} };
  if (!config.rateLimit) return off;
  const limited = views.filter((v) => v.service.kind === 'proxy' && v.service.rateLimits?.length);
  if (!limited.length) return off;
  const store = config.rateLimitStore === 'memory' ? memoryStore() : redisStore(config.rateLimitStore, config.rateLimitFail, logger);
  // Workers counting apart would each allow the whole limit: each keeps to its share instead.
  const share = store.name === 'memory' ? config.workers : 1;
  const limits = rateLimitHook(views, store, config.rateLimitFail, logger, share);
  if (limits.hooks.length) {
    const where = store.name === 'memory' ? `in each process${share > 1 ? ` (1/${share} of every limit per worker; --rate-limit-store redis://… for one count)` : ''}` : `in ${store.name} (if unreachable: fail ${config.rateLimitFail})`;
    logger.info(`rate limits of ${[...new Set(limited.map((v) => v.service.id))].join(', ')} enforced, counted ${where}`);
  }
  return limits;
}
