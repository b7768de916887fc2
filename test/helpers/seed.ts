// Tests derive their expectations from the seed document; the parser lives with the catalogue
// import tools that also read it.
export * from '../../tools/catalogue-import/seed.js';
