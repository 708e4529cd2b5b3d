/**
 * scripts/check-node.cjs: npm runs it before `npm ci`/`npm install` and `npm test`, so a
 * Node.js older than package.json's engines stops there with one sentence saying what to do.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

const ROOT = path.resolve(__dirname, "..");
const SCRIPT = path.join(ROOT, "scripts", "check-node.cjs");

// A CommonJS file on purpose (it must run before tsx is installed): typed here by hand.
const check = require(SCRIPT) as {
    minimumMajor(): number;
    nodeVersionProblem(version: string, minimum: number): string | null;
};

/** A Node.js older than 22 on this machine (the system one, here 20), to run the check with for real. */
function oldNode(): { bin: string; version: string } | undefined {
    for (const bin of ["/usr/local/bin/node", "/usr/bin/node"]) {
        if (!fs.existsSync(bin)) continue;
        const version = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
        if (Number(version.split(".")[0]) < 22) return { bin, version };
    }
    return undefined;
}

describe("the Node.js version check", () => {
    it("reads the minimum from package.json's engines", () => {
        const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
        assert.equal(pkg.engines.node, ">=22");
        assert.equal(check.minimumMajor(), 22);
    });

    it("stops an older Node.js with one sentence that says what to do", () => {
        assert.equal(
            check.nodeVersionProblem("20.20.2", 22),
            "nvcf-self-managed needs Node.js 22 or newer (found v20.20.2): install Node.js 22+ (https://nodejs.org/), then run npm ci again.",
        );
        assert.match(check.nodeVersionProblem("v18.0.0", 22)!, /\(found v18\.0\.0\)/);
        assert.notEqual(check.nodeVersionProblem("21.99.99", 22), null);
    });

    it("lets 22 and newer through", () => {
        for (const version of ["22.0.0", "v22.23.5", "24.1.0", "100.0.0"])
            assert.equal(check.nodeVersionProblem(version, 22), null, version);
    });

    it("runs before npm ci, npm install and npm test", () => {
        const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
        assert.equal(scripts.preinstall, "node scripts/check-node.cjs");
        assert.equal(scripts.pretest, "node scripts/check-node.cjs");
    });

    it("passes silently on this Node.js", () => {
        const res = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
        assert.equal(res.status, 0);
        assert.equal(res.stdout + res.stderr, "");
    });

    const old = oldNode();
    it("exits 1 with the sentence on a real older Node.js", { skip: old ? false : "no Node.js older than 22 on this machine" }, () => {
        const res = spawnSync(old!.bin, [SCRIPT], { encoding: "utf8" });
        assert.equal(res.status, 1);
        assert.equal(res.stdout, "");
        assert.equal(res.stderr, `${check.nodeVersionProblem(old!.version, 22)}\n`);
    });

    it("npm itself refuses an engine mismatch first (.npmrc engine-strict), before any download", () => {
        assert.match(fs.readFileSync(path.join(ROOT, ".npmrc"), "utf8"), /^engine-strict=true$/m);
    });

    it(
        "npm ci on a real older Node.js stops at once and leaves no node_modules",
        { skip: old ? false : "no Node.js older than 22 on this machine" },
        () => {
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-old-node-"));
            try {
                for (const f of ["package.json", "package-lock.json", ".npmrc"]) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
                fs.mkdirSync(path.join(dir, "policies"));
                fs.copyFileSync(path.join(ROOT, "policies", "package.json"), path.join(dir, "policies", "package.json"));
                const bin = path.dirname(old!.bin);
                const res = spawnSync(path.join(bin, "npm"), ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
                    cwd: dir,
                    encoding: "utf8",
                    timeout: 60_000,
                    env: {
                        // A user's shell: no npm_* settings of an npm that started this suite (npm run bench:test's).
                        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_"))),
                        PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`,
                        npm_config_cache: path.join(dir, "cache"),
                    },
                });
                assert.notEqual(res.status, 0);
                assert.match(res.stderr, /Not compatible with your version of node\/npm: nvcf-self-managed@/);
                assert.match(res.stderr, /Required: \{"node":">=22"\}/);
                assert.equal(fs.existsSync(path.join(dir, "node_modules")), false, "nothing was installed");
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        },
    );
});
