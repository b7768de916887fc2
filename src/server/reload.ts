// Reload: read the configuration and catalogue again, compile every program, and swap them in one
// step only if all of it is valid; otherwise keep serving the last good program. A signal, a POST or
// a watched file asks for one; at most one runs and one waits, and every request that arrives while
// one waits gets that one's outcome (a storm of 100 POSTs costs two reloads, not 100). Settings the
// declaration marks restart-only keep their start-up value, and the reload says so.
import { loadCatalogueOffLoop } from '../catalogue/load-in-worker.js';
import type { Catalogue } from '../catalogue/model.js';
import { pinReleases, type PinnedReleases, type ReleaseSpec } from '../catalogue/pin.js';
import { CatalogueError, formatProblem } from '../catalogue/problems.js';
import type { GatewayConfig } from '../config.js';
import type { ReloadOutcome } from '../gateway/program/state.js';
import type { Logger } from '../log.js';
import { SETTINGS } from '../settings.js';
import { shown } from '../setting-values.js';
import { describeReload } from './reload-summary.js';

export interface ReloadSteps {
  /** The configuration as it reads now (the CLI re-reads flags, environment and the config file). */
  reread: () => GatewayConfig;
  /** Compile and swap in the new programs and everything else a reload applies; throws to refuse. */
  apply: (cfg: GatewayConfig, catalogue: { catalogue: Catalogue; hash: string }, pinned: PinnedReleases) => Promise<void> | void;
  /** The default release now serving (per versioned service), to say when a reload moves it. */
  serving: () => PinnedReleases;
  hash: () => string;
  logger: Logger;
  /** Withdraw what the configuration's tokens file no longer grants, at once (a revocation does not wait for the compile, nor depend on it). */
  revoke?: (cfg: GatewayConfig) => void;
  /** Told after every reload. */
  onReload?: (outcome: ReloadOutcome) => void;
}

export interface Reloader {
  /** `expectHash`: apply only a catalogue with this content hash (a fleet's target), else refuse. */
  reload(trigger: string, expectHash?: string): Promise<ReloadOutcome>;
  last(): ReloadOutcome | undefined;
  /** The configuration the last applied reload (or start-up) runs with. */
  config(): GatewayConfig;
  counts: { applied: number; refused: number };
}

export function createReloader(startConfig: GatewayConfig, startCatalogue: Catalogue, steps: ReloadSteps): Reloader {
  let applied = startConfig;
  let catalogue = startCatalogue;
  let last: ReloadOutcome | undefined;
  const counts = { applied: 0, refused: 0 };
  // With no --release the gateway serves the newest release it started with; it moves only if told to.
  const startPin = pinOf(steps.serving());
  let running: Promise<ReloadOutcome> | undefined;
  let pending: { triggers: string[]; expectHash?: string; promise: Promise<ReloadOutcome> } | undefined;

  const start = (triggers: string[], expectHash?: string): Promise<ReloadOutcome> => {
    const p = reloadNow(triggers.length > 1 ? `${triggers[0]} (and ${triggers.length - 1} more asking while one ran)` : triggers[0], expectHash);
    running = p;
    void p.finally(() => { if (running === p) running = undefined; });
    return p;
  };

  async function reloadNow(trigger: string, expectHash: string | undefined): Promise<ReloadOutcome> {
    const t0 = performance.now();
    const at = new Date().toISOString();
    try {
      const cfg = keepRestartOnly(steps.reread(), applied, steps.logger);
      steps.revoke?.(cfg); // before the catalogue is read and compiled: a revoked token loses its access now
      const unpinned = !cfg.release.all?.length && !Object.keys(cfg.release.byService).length;
      const spec: ReleaseSpec = unpinned && !cfg.followNewest ? { ...startPin, default: cfg.release.default } : cfg.release;
      const next = await loadCatalogueOffLoop(cfg.catalogue, { cacheDir: cfg.cacheDir }); // read, parse, check and build on a worker thread
      if (expectHash && next.hash !== expectHash) throw new Error(`this replica's catalogue copy has hash ${next.hash}, not the fleet's ${expectHash} (its copy may still be on its way)`);
      const before = steps.serving();
      const pinned = pinReleases(next.catalogue, spec);
      const summary = [await describeReload(catalogue, next.catalogue, pinned), ...releaseMoves(before, pinned, next.catalogue, unpinned && !cfg.followNewest)].join('; ');
      await steps.apply(cfg, next, pinned);
      applied = cfg;
      catalogue = next.catalogue;
      last = { ok: true, trigger, at, ms: Math.round(performance.now() - t0), summary, hash: next.hash };
      steps.logger.info(`reloaded (${trigger}) in ${last.ms} ms: ${summary}`);
    } catch (e) {
      const problems = e instanceof CatalogueError ? e.problems.map(formatProblem) : [(e as Error).message];
      last = { ok: false, trigger, at, ms: Math.round(performance.now() - t0), summary: `refused; still serving catalogue ${steps.hash()}`, problems };
      steps.logger.warn(`reload (${trigger}) refused, still serving catalogue ${steps.hash()}:\n${problems.join('\n')}`);
    }
    counts[last.ok ? 'applied' : 'refused']++;
    steps.onReload?.(last);
    return last;
  }

  return {
    reload(trigger, expectHash) {
      if (!running) return start([trigger], expectHash);
      if (pending) {
        pending.triggers.push(trigger);
        // Conditional only if every asker was the fleet: an operator's reload takes whatever the copy holds.
        pending.expectHash = pending.expectHash && expectHash ? expectHash : undefined;
        return pending.promise;
      }
      const next: { triggers: string[]; expectHash?: string; promise: Promise<ReloadOutcome> } = { triggers: [trigger], expectHash, promise: Promise.resolve() as never };
      next.promise = running.then(() => undefined, () => undefined).then(() => {
        pending = undefined;
        return start(next.triggers, next.expectHash);
      });
      pending = next;
      return next.promise;
    },
    last: () => last,
    config: () => applied,
    counts,
  };
}

/** `next` with every restart-only setting as it is now; one line per setting that a restart would change. */
function keepRestartOnly(next: GatewayConfig, now: GatewayConfig, logger: Logger): GatewayConfig {
  const out = { ...next } as unknown as Record<string, unknown>;
  const was = now as unknown as Record<string, unknown>;
  for (const s of SETTINGS) {
    if (s.reload || JSON.stringify(out[s.key]) === JSON.stringify(was[s.key])) continue;
    logger.warn(`setting ${s.flag ? `--${s.flag}` : s.key} changed: needs a restart; still using ${shown(was[s.key], s.secret)}`);
    out[s.key] = was[s.key];
  }
  return out as unknown as GatewayConfig;
}

/** The releases each versioned service serves now, as a spec that keeps serving them. */
function pinOf(p: PinnedReleases): ReleaseSpec {
  const byService: Record<string, string[]> = {};
  for (const r of p.served) for (const v of r.views) if (v.release) (byService[v.service.id] ??= []).push(v.release.id);
  return { byService };
}

/** "default release moved …" or "newest release is now …, still serving …": a reload never moves clients silently. */
function releaseMoves(before: PinnedReleases, after: PinnedReleases, catalogue: Catalogue, held: boolean): string[] {
  const out: string[] = [];
  for (const v of after.default.views) {
    if (!v.release) continue;
    const was = before.default.views.find((b) => b.service.id === v.service.id)?.release?.id;
    if (was && was !== v.release.id) out.push(`${v.service.id}: default release moved ${was} → ${v.release.id}`);
    const newest = catalogue.services.find((s) => s.id === v.service.id)?.releases.at(-1)?.id;
    if (held && newest && newest !== v.release.id) out.push(`${v.service.id}: newest release is now ${newest}, still serving ${v.release.id} (--follow-newest or --release to move)`);
  }
  return out;
}
