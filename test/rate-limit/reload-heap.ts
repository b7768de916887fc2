// Issue 22 finding 1: state that belongs to a compiled program must die with it. Each cycle swaps in
// a program compiled from a freshly loaded catalogue (what a reload does) and sends one request to a
// rate-limited route, so the limiter plans that route. The live heap after a forced GC must stay
// flat: the bound is derived from the measured size of one program, so a leak of a program per
// reload (the old per-Route Map: ~1.4 MiB each) fails however big a program is.
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { pinReleases } from '../../src/catalogue/pin.js';
import * as assert from '../support/assert.js';
import { collectGarbage } from '../support/gc.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { suite } from '../support/uvu.js';

/** Live heap after full collections. */
export function liveHeap(): number {
  for (let i = 0; i < 3; i++) collectGarbage();
  return process.memoryUsage().heapUsed;
}

const settings = (upstream: string) => readConfig(['--port', '0', '--upstream', `exchange=${upstream}`, '--release', '3.12.0'], {});

export async function reloadGateway(upstream: string): Promise<RunningGateway> {
  return startGateway(settings(upstream), { logger: createLogger('silent') });
}

const MiB = 2 ** 20;

/**
 * `cycles` reloads each followed by a rate-limited request; asserts the live heap grew by less than
 * `programs` programs' worth over them (after `warm` cycles for lazy loads and caches to settle).
 */
export async function heapStaysFlat(gw: RunningGateway, cycles: number, reload: () => Promise<unknown>, warm = 20): Promise<{ perProgram: number; growth: number }> {
  const cycle = async () => {
    await reload();
    const r = await fetch(`${gw.url}/api/v3/ping`); // weight 1 against REQUEST_WEIGHT: planned by the limiter
    assert.is(r.status, 200, await r.text());
  };
  for (let i = 0; i < warm; i++) await cycle();
  // One program's live size: the heap holding one replaced state on purpose, minus the heap without it.
  let held: unknown = gw.gateway.state();
  await cycle();
  const holding = liveHeap();
  held = undefined;
  await cycle();
  const released = liveHeap();
  const perProgram = Math.max(holding - released, 256 * 1024);
  void held;
  const before = liveHeap();
  for (let i = 0; i < cycles; i++) await cycle();
  const growth = liveHeap() - before;
  const allowed = Math.max(5, cycles / 40) * perProgram;
  assert.ok(growth < allowed, `live heap grew ${(growth / MiB).toFixed(1)} MiB over ${cycles} reloads with traffic; one program is ${(perProgram / MiB).toFixed(2)} MiB, so that is ${(growth / perProgram).toFixed(0)} programs kept (allowed: ${(allowed / perProgram).toFixed(0)})`);
  return { perProgram, growth };
}

/** What a reload swaps in: programs compiled from the catalogue loaded anew. */
export function swapFromDisk(gw: RunningGateway, upstream: string): () => Promise<void> {
  const config = settings(upstream);
  return async () => { gw.gateway.swap(pinReleases(loadCatalogue(config.catalogue).catalogue, config.release), {}); };
}

/** A suite of one test: `cycles` reloads made by `reload` (given the gateway and upstream), live heap flat. */
export function reloadHeapSuite(title: string, name: string, cycles: number, reload: (gw: RunningGateway, upstream: string) => () => Promise<unknown>): void {
  const test = suite(title);
  let upstream: Upstream;
  let gw: RunningGateway;
  test.before(async () => {
    upstream = await startUpstream();
    gw = await reloadGateway(upstream.url);
  });
  test.after(async () => {
    await gw.close();
    await upstream.stop();
  });
  test(name, async () => {
    const { perProgram, growth } = await heapStaysFlat(gw, cycles, reload(gw, upstream.url));
    console.log(`one program: ${(perProgram / MiB).toFixed(2)} MiB; growth over ${cycles} reloads: ${(growth / MiB).toFixed(2)} MiB`);
  });
  test.run();
}
