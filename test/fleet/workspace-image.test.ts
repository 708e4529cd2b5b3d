import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { DEFAULT_WORKSPACE_IMAGE } from "../../fleet/settings/upstream";

const ROOT = path.resolve(__dirname, "..", "..");
const DOCKERFILE = fs.readFileSync(path.join(ROOT, "fleet", "workspace-image", "Dockerfile"), "utf8");

describe("the workspace image's Dockerfile (docs/fleets.md, Workspace image)", () => {
    test("builds on the image the fleet pins by default", () => {
        assert.match(DOCKERFILE, new RegExp(`^ARG BASE=${DEFAULT_WORKSPACE_IMAGE.replace(/[.]/g, "\\.")}$`, "m"));
        assert.match(DOCKERFILE, /^FROM \$\{BASE\}$/m);
    });

    test("copies what `pulumi install` needs of the repository, each of which exists", () => {
        const sources = [...DOCKERFILE.matchAll(/^COPY (?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1].split(" "));
        assert.deepEqual(sources, ["package.json", "package-lock.json", "Pulumi.yaml", "policies/package.json", "scripts/check-node.cjs"]);
        for (const file of sources) assert.ok(fs.existsSync(path.join(ROOT, file)), file);
        // npm's preinstall runs this script: the image must hold it where package.json says.
        const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
        assert.equal(pkg.scripts.preinstall, "node scripts/check-node.cjs");
    });

    test("keeps only the caches, and lets npm use them without asking the registry", () => {
        assert.match(DOCKERFILE, /^RUN pulumi install && rm -rf \/home\/pulumi\/nvcf-dependencies$/m);
        assert.match(DOCKERFILE, /^ENV npm_config_prefer_offline=true$/m);
    });
});
