// pnpm hooks. beforePacking shapes every published manifest (pnpm pack, pnpm publish,
// changeset publish); the rules live in scripts/published-manifest.cjs so that changing them does
// not change this file's checksum in the lockfile.
const { publishedManifest } = require("./scripts/published-manifest.cjs");

module.exports = { hooks: { beforePacking: publishedManifest } };
