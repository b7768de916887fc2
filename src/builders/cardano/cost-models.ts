// Plutus cost models for the script data hash. The numbers are copied into cost-models.json from
// the vendored data file data/plutus-cost-models.json (mainnet; preprod and preview are equal
// there; test/builders/cardano/cost-models.test.ts checks the copy) so dist/ needs no data/ at run time.
import * as CSL from './csl.js';
import models from './cost-models.json' with { type: 'json' };
import { withArena } from './arena.js';

export const COST_MODELS: { readonly v1: readonly number[]; readonly v2: readonly number[]; readonly v3: readonly number[] } = {
  v1: models.plutusV1,
  v2: models.plutusV2,
  v3: models.plutusV3,
};

let costmdls: CSL.Costmdls | undefined;

/** All three languages, as the reference does; CSL keeps only the languages a tx uses when hashing. */
export function costModels(): CSL.Costmdls {
  costmdls ??= withArena((a) => {
    const all = CSL.Costmdls.new();
    const languages: [CSL.Language, readonly number[]][] = [
      [a.own(CSL.Language.new_plutus_v1()), COST_MODELS.v1],
      [a.own(CSL.Language.new_plutus_v2()), COST_MODELS.v2],
      [a.own(CSL.Language.new_plutus_v3()), COST_MODELS.v3],
    ];
    for (const [language, values] of languages) {
      const model = a.own(CSL.CostModel.new());
      values.forEach((v, i) => a.ownOpt(model.set(i, a.own(CSL.Int.from_str(String(v))))));
      a.ownOpt(all.insert(language, model));
    }
    return all;
  });
  return costmdls;
}
