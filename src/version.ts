/** Docent's release, as package.json names it (src/version.test.ts keeps the two equal). */
export const DOCENT_VERSION = '0.1.0';
