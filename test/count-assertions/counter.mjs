// The one assertion counter shared by the assert and uvu wrappers of this process.
let count = 0;
export const counted = () => count;
export const tick = () => { count++; };
