// Stops `npm ci`/`npm install` (preinstall) and `npm test` (pretest) on a Node.js older than
// package.json's engines.node says, with one sentence saying what to do: npm alone only warns
// (EBADENGINE) and the tests then die with "bad option: --experimental-test-isolation=none".
// It runs on whatever Node.js the user has, before any dependency is installed: plain
// CommonJS, no syntax newer than ES2015, nothing but Node's own modules.
"use strict";

var path = require("path");
var fs = require("fs");

/** The lowest major version package.json's engines.node (">=22") allows. */
function minimumMajor() {
    var pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
    var match = /^>=\s*(\d+)/.exec((pkg.engines && pkg.engines.node) || "");
    if (!match) throw new Error('package.json engines.node must read ">=<major>"');
    return Number(match[1]);
}

/** The sentence to stop with, or null when `version` (e.g. "20.20.2" or "v20.20.2") will do. */
function nodeVersionProblem(version, minimum) {
    var plain = String(version).replace(/^v/, "");
    if (Number(plain.split(".")[0]) >= minimum) return null;
    return (
        "nvcf-self-managed needs Node.js " +
        minimum +
        " or newer (found v" +
        plain +
        "): " +
        "install Node.js " +
        minimum +
        "+ (https://nodejs.org/), then run npm ci again."
    );
}

module.exports = { minimumMajor: minimumMajor, nodeVersionProblem: nodeVersionProblem };

if (require.main === module) {
    var problem = nodeVersionProblem(process.versions.node, minimumMajor());
    if (problem !== null) {
        console.error(problem);
        process.exit(1);
    }
}
