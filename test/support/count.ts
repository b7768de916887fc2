// The one assertion counter of a test process, shared by ./assert.ts and ./uvu.ts.
let count = 0;
export const counted = (): number => count;
export const tick = (): void => {
  count++;
};
