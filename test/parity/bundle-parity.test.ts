/**
 * Parity with NVIDIA's bundle, run for real: for each environment of test/parity/environments,
 * the program's control-plane releases against `helmfile write-values` and `helmfile list` over
 * the bundle's whole `helmfile.d`. Runs through `npm run test:parity` (NVCF_PARITY=1), which
 * needs helm and helmfile (scripts/parity/build-tools.sh) and a checkout of NVIDIA/nvcf
 * (NVCF_BUNDLE); `npm test`'s glob also matches this file, and skips it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "yaml";
import { BUNDLE_BASE } from "../../config/model/bundle-base";
import { deepMerge, type Plain } from "../../config/model/deep-merge";
import { environmentSchema } from "../../config/model/schema";
import { buildChartReads, bundleKeys } from "../../scripts/parity/chart-reads";
import { findParityTools } from "../../scripts/parity/tools";
import { bundle, type BundleRun } from "./bundle";
import { compareReleases, formatMismatches } from "./compare";
import { bundleEnvironment, bundleSecrets, ENVIRONMENTS, GATEWAY_STATE_VALUES, programEnvironment, programReleases } from "./environments";
import { schemaAccepts } from "./schema-paths";

// Only under `npm run test:parity`: finding the checkout may extract it from a git directory.
const { tools, missing } = process.env.NVCF_PARITY === "1" ? findParityTools() : { tools: undefined, missing: "" };
const skip = process.env.NVCF_PARITY !== "1" ? "runs through `npm run test:parity`" : tools ? false : missing;

describe("parity with NVIDIA's bundle (helmfile write-values)", { skip }, () => {
    let run: BundleRun;
    before(() => {
        run = bundle(tools!);
    });
    after(() => run?.cleanup());

    const stackFile = (...parts: string[]) => fs.readFileSync(path.join(run.stacks, ...parts), "utf8");

    test("the defaults an environment is merged over are the bundle's two base.yaml files", () => {
        const selfManaged = parse(stackFile("self-managed", "environments", "base.yaml")) as Plain;
        const observability = parse(stackFile("observability", "environments", "base.yaml")) as Plain;
        // The self-managed stack passes these keys over the observability stack's defaults.
        const passed = [
            "metricsBackend",
            "prometheusOperatorCrds",
            "opentelemetryOperator",
            "collector",
            "victoriaMetrics",
            "defaultMonitors",
        ];
        const expected = deepMerge(
            {
                ...Object.fromEntries(passed.map((k) => [k, observability[k]])),
                observability: { namespace: (observability.observability as Plain).namespace },
            },
            selfManaged,
        );
        assert.deepEqual(BUNDLE_BASE, expected);
    });

    test("every key the bundle's templates read is a key of the environment", () => {
        const keys = bundleKeys(run.stacks);
        const unknown = keys.filter((p) => !schemaAccepts(environmentSchema, p.split(".")));
        assert.ok(keys.length > 200, `read ${keys.length} keys: the template reader found too few`);
        assert.deepEqual(unknown, [], "keys the bundle reads that the environment does not accept");
    });

    test(
        "test/fixtures/chart-reads.json is what the charts' sources read",
        { skip: tools?.git ? false : "NVCF_BUNDLE is not a git directory" },
        () => {
            const committed = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "fixtures", "chart-reads.json"), "utf8")) as unknown;
            assert.deepEqual(
                buildChartReads(tools!.git!),
                committed,
                "rebuild it with `npm run chart-reads -- --write` and review the diff",
            );
        },
    );

    for (const name of ENVIRONMENTS) {
        test(`${name}: every release, namespace, chart, version and value as the bundle's`, async () => {
            const program = await programReleases(programEnvironment(name));
            const bundled = run.run(`parity-${name}`, bundleEnvironment(name), bundleSecrets(), GATEWAY_STATE_VALUES);
            const mismatches = compareReleases(program, bundled);
            assert.ok(program.length > 5, `${name}: the program declared only ${program.length} releases`);
            assert.equal(mismatches.length, 0, formatMismatches(name, mismatches));
        });
    }
});
