// The plugins this gateway ships, by the names the catalogue uses.
import type { BuilderPlugin, PluginRegistry } from './plugin.js';

/** Wrap a dynamic import so the module (and its WASM) loads on first call, not at start-up. */
function lazy(load: () => Promise<{ default: BuilderPlugin }>): BuilderPlugin {
  let plugin: Promise<BuilderPlugin> | null = null;
  return (body) => {
    plugin ??= load().then((m) => m.default);
    return plugin.then((p) => p(body));
  };
}

export const builtinPlugins: PluginRegistry = new Map<string, BuilderPlugin>([
  ['send_lovelace', lazy(() => import('./cardano/send-lovelace.js'))],
  ['lock_fund', lazy(() => import('./cardano/lock-fund.js'))],
  ['unlock_fund', lazy(() => import('./cardano/unlock-fund.js'))],
  ['mint_tokens', lazy(() => import('./cardano/mint-tokens.js'))],
  ['delegate_stake', lazy(() => import('./cardano/delegate-stake.js'))],
  ['complex_transaction', lazy(() => import('./cardano/complex-transaction.js'))],
  ['collateral_return', lazy(() => import('./cardano/collateral-return.js'))],
]);
