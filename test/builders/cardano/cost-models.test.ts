// src/builders/cardano/cost-models.json is a copy of the vendored data/plutus-cost-models.json
// (mainnet), kept in src/ so dist/ runs without data/: the copy must not drift from its source.
import { readFileSync } from 'node:fs';
import { test } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import { COST_MODELS } from '../../../src/builders/cardano/cost-models.js';
import { dataFile } from '../../helpers/seed.js';

test('the cost models the builders use are data/plutus-cost-models.json mainnet, V1 V2 V3', () => {
  const source = JSON.parse(readFileSync(dataFile('plutus-cost-models.json'), 'utf8')) as Record<string, number[][]>;
  assert.equal([COST_MODELS.v1, COST_MODELS.v2, COST_MODELS.v3], source.mainnet);
  assert.equal(source.preprod, source.mainnet, 'preprod equal to mainnet, as the comment says');
  assert.equal(source.preview, source.mainnet, 'preview equal to mainnet, as the comment says');
});

test.run();
