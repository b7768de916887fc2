// How strict each security requirement is (the diff's relaxed/tightened, the release import's relaxations).
import type { SecurityScheme } from './model.js';

/** A lower rank admits every request a higher one admits. */
export const SCHEME_RANK: Readonly<Record<SecurityScheme, number>> = { NONE: 0, API_KEY: 1, SIGNED: 2 };
