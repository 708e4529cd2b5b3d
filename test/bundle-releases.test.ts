import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import {
    bundleReleases,
    compareVersions,
    loadBundleReleases,
    RELEASES_DIR,
    selectedBundleRelease,
} from "../components/bundle/bundle-releases";
import { installedStatefulReleases } from "../components/bundle/installed";
import { parseReceipt, receiptData } from "../components/bundle/receipt";
import { ReceiptKeyProvider } from "../components/providers/bundle-receipt-key";
import { restartWarnings, valuesFingerprint } from "../components/bundle/restart-warning";
import { computePlaneVersions, controlPlaneChartVersions } from "../components/bundle/versions";
import { CATALOG, RELEASE_NAMES } from "../components/catalog/control-plane";
import { computePlaneSchema } from "../config/model/compute-plane-schema";
import { ConfigError } from "../config/model/errors";
import { parseSettings } from "../config/settings";
import { devConfig, runProgram, withConfig, PROJECT, type ProgramRun } from "./support/harness";
import { devRaw } from "./support/raw-config";
import { fixtureRelease } from "./support/upgrade-world";

describe("bundle releases as data (components/bundle/releases/)", () => {
    test("the repository knows the pinned bundle release, newest, with a version for every release the program installs", () => {
        const releases = bundleReleases();
        const pinned = releases[releases.length - 1];
        assert.equal(pinned.release, "0.8.0");
        assert.match(pinned.source, /NVIDIA\/nvcf fadc0f81/);
        assert.deepEqual(Object.keys(pinned.controlPlane.charts).sort(), [...RELEASE_NAMES].sort());
        assert.deepEqual(pinned.computePlane.images, { "nvca-operator": "3.2.7", nvca: "3.2.7", "otel-collector": "0.157.9" });
        assert.equal(pinned.computePlane.charts["nvca-operator"], "1.21.3");
        assert.equal(selectedBundleRelease(undefined), pinned, "unset: the newest");
    });

    test("the end-to-end suite has a fixture chart of every catalog release at the pinned bundle's version", () => {
        const pinned = selectedBundleRelease("0.8.0");
        for (const entry of CATALOG) {
            const chart = fs.readFileSync(path.join(__dirname, "e2e", "charts", entry.chart, "Chart.yaml"), "utf8");
            assert.match(chart, new RegExp(`^version: ${pinned.controlPlane.charts[entry.name].replace(/\./g, "\\.")}$`, "m"), entry.name);
        }
    });

    test("versions order as semantic versions: numbers by value, a pre-release before its release, a leading v and build metadata ignored", () => {
        const sorted = ["1.0.10", "0.8.1-e2e", "0.8.0", "1.0.2", "v1.0.4", "0.8.1", "1.0.4+build.7", "0.8.1-rc.2", "0.8.1-rc.10"].sort(
            compareVersions,
        );
        assert.deepEqual(sorted, [
            "0.8.0",
            "0.8.1-e2e",
            "0.8.1-rc.2",
            "0.8.1-rc.10",
            "0.8.1",
            "1.0.2",
            "v1.0.4",
            "1.0.4+build.7",
            "1.0.10",
        ]);
    });

    describe("adding a release is one file; a malformed one stops, naming the file and what is wrong", () => {
        let dir: string;
        before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "bundle-releases-"))));
        after(() => fs.rmSync(dir, { recursive: true, force: true }));
        const write = (name: string, release: unknown) => {
            for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
            fs.copyFileSync(path.join(RELEASES_DIR, "0.8.0.json"), path.join(dir, "0.8.0.json"));
            fs.writeFileSync(path.join(dir, name), typeof release === "string" ? release : JSON.stringify(release));
        };

        test("a second release file is a second, newer release", () => {
            write("1.0.0.json", fixtureRelease("1.0.0", { api: "1.26.0" }));
            const releases = loadBundleReleases(dir);
            assert.deepEqual(
                releases.map((r) => r.release),
                ["0.8.0", "1.0.0"],
            );
            assert.equal(selectedBundleRelease(undefined, releases).controlPlane.charts.api, "1.26.0");
            assert.equal(selectedBundleRelease("0.8.0", releases).controlPlane.charts.api, "1.25.1");
        });

        test("a missing or unknown release, a range for a version, a misnamed file, bad JSON", () => {
            const good = fixtureRelease("1.0.0");
            const { api: _api, ...withoutApi } = good.controlPlane.charts;
            const cases: [string, unknown, RegExp][] = [
                [
                    "1.0.0.json",
                    { ...good, controlPlane: { charts: withoutApi } },
                    /bundle release .*1\.0\.0\.json is malformed: controlPlane\.charts: lacks api/,
                ],
                [
                    "1.0.0.json",
                    { ...good, controlPlane: { charts: { ...good.controlPlane.charts, "no-such": "1.0.0" } } },
                    /names no-such, which this program does not install/,
                ],
                [
                    "1.0.0.json",
                    { ...good, controlPlane: { charts: { ...good.controlPlane.charts, api: "^1.25" } } },
                    /controlPlane\.charts\.api: must be a pinned semantic version/,
                ],
                ["1.0.1.json", good, /says release 1\.0\.0; the file must be named 1\.0\.0\.json/],
                ["1.0.0.json", "{ not json", /1\.0\.0\.json is not valid JSON/],
                ["1.0.0.json", { ...good, source: "" }, /source: Too small/],
            ];
            for (const [file, content, expected] of cases) {
                write(file, content);
                assert.throws(() => loadBundleReleases(dir), expected, file);
            }
        });
    });
});

describe("the stack selects its bundle release (nvcf-self-managed:bundle.release)", () => {
    test("an unknown release stops the program naming the key, what was given and what is known", () => {
        let error: unknown;
        try {
            parseSettings(devRaw({ values: { bundle: { release: "9.9.9" } } }), { releaseNames: RELEASE_NAMES, bundleReleases: ["0.8.0"] });
        } catch (e) {
            error = e;
        }
        assert.ok(error instanceof ConfigError);
        assert.match(
            error.message,
            /nvcf-self-managed:bundle\.release: is not a bundle release this program knows .*; given "9\.9\.9"; allowed: 0\.8\.0/,
        );
        assert.throws(
            () => parseSettings(devRaw({ values: { bundle: { release: "latest" } } }), { releaseNames: RELEASE_NAMES }),
            /nvcf-self-managed:bundle\.release: must be a pinned semantic version/,
        );
    });

    test("an observability release's version key pins its chart only when the environment changes base.yaml's", () => {
        const bundle = fixtureRelease("2.0.0", { "victoria-metrics": "0.40.0" });
        const cp = (controlPlane?: Record<string, unknown>) =>
            parseSettings(devRaw({ controlPlane }), { releaseNames: RELEASE_NAMES }).controlPlane;
        assert.equal(controlPlaneChartVersions(bundle, {}, cp())["victoria-metrics"], "0.40.0");
        assert.equal(controlPlaneChartVersions(bundle, {}, cp({ victoriaMetrics: { version: "0.39.1" } }))["victoria-metrics"], "0.39.1");
        assert.equal(
            controlPlaneChartVersions(
                bundle,
                { "victoria-metrics": { version: "0.41.0" } },
                cp({ victoriaMetrics: { version: "0.39.1" } }),
            )["victoria-metrics"],
            "0.41.0",
        );
    });

    test("a per-release version pin and a plane's NVCA pins win over the bundle release's versions", () => {
        const bundle = fixtureRelease("2.0.0", { api: "2.0.0", "nvca-operator": "2.0.0" }, { "nvca-operator": "4.0.0" });
        const cp = parseSettings(devRaw(), { releaseNames: RELEASE_NAMES }).controlPlane;
        assert.equal(controlPlaneChartVersions(bundle, {}, cp).api, "2.0.0");
        assert.equal(controlPlaneChartVersions(bundle, { api: { version: "1.25.9" } }, cp).api, "1.25.9");
        const plane = (nvcaOperator: object) =>
            computePlaneSchema.parse({ clusterName: "gpu", cluster: { sameAsControlPlane: true }, nvcaOperator });
        assert.deepEqual(computePlaneVersions(bundle, plane({})), {
            charts: { ...bundle.computePlane.charts },
            operatorImage: "4.0.0",
            nvcaVersion: "3.2.7",
            otelCollectorImage: "0.157.9",
        });
        const pinned = computePlaneVersions(
            bundle,
            plane({ chartVersion: "1.21.3", imageTag: "3.2.7", nvcaVersion: "3.2.8", otelCollector: { imageTag: "0.158.0" } }),
        );
        assert.deepEqual(
            [pinned.charts["nvca-operator"], pinned.operatorImage, pinned.nvcaVersion, pinned.otelCollectorImage],
            ["1.21.3", "3.2.7", "3.2.8", "0.158.0"],
        );
    });
});

describe("the receipt and the stateful releases in the program", () => {
    let run: ProgramRun;
    before(async () => {
        const { config, secretKeys } = devConfig();
        run = await runProgram(
            withConfig(config, { [`${PROJECT}:computePlanes`]: [{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true } }] }),
            secretKeys,
        );
    });

    test("pulumi up writes the receipt ConfigMap nvcf/nvcf-upgrade-receipt last: the bundle release and each release's chart version", () => {
        const receipt = run.resources.find((r) => r.type === "kubernetes:core/v1:ConfigMap" && r.name === "bundle-receipt")!;
        const meta = receipt.inputs.metadata as { name: string; namespace: string; annotations: Record<string, string> };
        assert.equal(meta.name, "nvcf-upgrade-receipt");
        assert.equal(meta.namespace, "nvcf");
        assert.match(meta.annotations["nvcf.nvidia.com/receipt"], /do not edit/);
        const content = parseReceipt(receipt.inputs.data as Record<string, string>)!;
        assert.equal(content.bundleRelease, "0.8.0");
        assert.equal(content.controlPlane.nats, "0.7.1");
        assert.deepEqual(content.computePlanes, { "gpu-a": { "nvca-operator": "1.21.3" } });
        // After every release and gate of every cluster.
        const gates = run.resources.filter((r) => r.type === "pulumi-nodejs:dynamic/nvcf:HealthGate").map((r) => r.urn);
        const releases = run.resources.filter((r) => r.type === "kubernetes:helm.sh/v3:Release").map((r) => r.urn);
        for (const urn of [...gates, ...releases]) assert.ok(receipt.dependencies.includes(urn), urn);
        assert.deepEqual((run.outputs.upgrade as { bundleRelease: string; receipt: string }).bundleRelease, "0.8.0");
    });

    test("the program reads no StackReference (its own checkpoint may be mid-write); the preview reads the receipt instead (test/e2e/upgrade.test.ts)", () => {
        assert.deepEqual(
            run.resources.filter((r) => r.type === "pulumi:pulumi:StackReference").map((r) => r.name),
            [],
        );
    });

    test("the receipt keeps NATS, OpenBao and Cassandra as deployed: version and an HMAC of their values, keyed by a stack-state secret", () => {
        const receipt = run.resources.find((r) => r.type === "kubernetes:core/v1:ConfigMap" && r.name === "bundle-receipt")!;
        const key = run.resources.find((r) => r.name === "bundle-receipt-key")!;
        assert.equal(key.type, "pulumi-nodejs:dynamic/nvcf:BundleReceiptKey");
        assert.equal(key.parent, run.resources.find((r) => r.type === "nvcf:bundle:Bundle")!.urn);
        const content = parseReceipt(receipt.inputs.data as Record<string, string>)!;
        const releases = Object.fromEntries(
            run.resources.filter((r) => r.type === "kubernetes:helm.sh/v3:Release").map((r) => [r.name.replace(/^control-plane-/, ""), r]),
        );
        assert.deepEqual(Object.keys(content.statefulReleases!).sort(), ["cassandra", "nats", "openbao-server"]);
        for (const [name, state] of Object.entries(content.statefulReleases!)) {
            const release = releases[name];
            assert.ok(release, name);
            assert.equal(state.version, release.inputs.version);
            // The mocks' key; a plain SHA-256 of the values (with Cassandra's password in them) is never written.
            assert.equal(state.values, valuesFingerprint(release.inputs.values, "ab".repeat(32)));
            assert.notEqual(state.values, valuesFingerprint(release.inputs.values));
        }
    });

    test("the receipt key is made once by its own provider (no random plugin), kept secret, and never replaced", async () => {
        const receiptKeyProvider = new ReceiptKeyProvider();
        const first = (await receiptKeyProvider.create({})).outs!;
        const second = (await receiptKeyProvider.create({})).outs!;
        assert.match(first.key, /^[0-9a-f]{64}$/);
        assert.notEqual(first.key, second.key);
        assert.deepEqual(await receiptKeyProvider.diff("bundle-receipt-key", first, {}), { changes: false });
        // Only an unset cassandraPassword needs the random provider (the end-to-end stacks set it and have no random plugin).
        const bundle = run.resources.find((r) => r.type === "nvcf:bundle:Bundle")!;
        const randoms = run.resources.filter((r) => r.type.startsWith("random:"));
        assert.deepEqual(
            randoms.map((r) => r.name),
            ["control-plane-cassandra-password"],
        );
        assert.ok(!randoms.some((r) => r.parent === bundle.urn));
    });

    test("the receipt's data round-trips, its keys sorted; something else in its place is not a receipt", () => {
        const data = receiptData({
            bundleRelease: "1.0.0",
            controlPlane: { nats: "0.7.1", api: "1.25.1" },
            computePlanes: { b: { x: "1" }, a: { y: "2" } },
        });
        assert.equal(data.controlPlane, '{"api":"1.25.1","nats":"0.7.1"}');
        assert.equal(data.computePlanes, '{"a":{"y":"2"},"b":{"x":"1"}}');
        assert.deepEqual(parseReceipt(data)?.controlPlane, { api: "1.25.1", nats: "0.7.1" });
        assert.equal(parseReceipt({ controlPlane: "{}" }), undefined);
        assert.equal(parseReceipt({ bundleRelease: "1", controlPlane: "[1]" }), undefined);
        assert.equal(parseReceipt(undefined), undefined);
    });

    test("what the preview compares with: the receipt's stateful part, or the chart versions alone from a receipt written before it", () => {
        const stateful = { nats: { version: "0.7.1", values: "d1" }, cassandra: { version: "0.20.1", values: "d2" } };
        const full = parseReceipt(
            receiptData({
                bundleRelease: "0.8.0",
                controlPlane: { nats: "0.7.1", api: "1.25.1" },
                computePlanes: {},
                statefulReleases: stateful,
            }),
        );
        assert.deepEqual(installedStatefulReleases(full), stateful);
        const older = parseReceipt(
            receiptData({
                bundleRelease: "0.8.0",
                controlPlane: { nats: "0.7.1", "openbao-server": "0.30.25", api: "1" },
                computePlanes: {},
            }),
        );
        assert.deepEqual(installedStatefulReleases(older), { nats: { version: "0.7.1" }, "openbao-server": { version: "0.30.25" } });
        assert.equal(installedStatefulReleases(undefined), undefined);
        // A malformed stateful part is dropped, the receipt kept.
        const bad = parseReceipt({
            bundleRelease: "0.8.0",
            controlPlane: '{"nats":"0.7.1"}',
            computePlanes: "{}",
            statefulReleases: '{"nats":{"version":1}}',
        });
        assert.deepEqual(installedStatefulReleases(bad), { nats: { version: "0.7.1" } });
    });
});

describe("the warning of a plain pulumi up that would restart NATS, OpenBao or Cassandra", () => {
    const state = (version: string, values: unknown) => ({ version, values: valuesFingerprint(values) });
    const installed = { nats: state("0.7.1", { nats: { a: 1 } }), "openbao-server": state("0.30.25", {}), cassandra: state("0.20.1", {}) };

    test("none on a fresh install, and none when nothing of them changes", () => {
        assert.deepEqual(restartWarnings(undefined, installed, "dev"), []);
        assert.deepEqual(restartWarnings({}, installed, "dev"), []);
        assert.deepEqual(restartWarnings(installed, { ...installed, nats: state("v0.7.1", { nats: { a: 1, b: null } }) }, "dev"), []);
    });

    test("a chart version or values change of one of them warns, naming what changes and the upgrade command", () => {
        const warnings = restartWarnings(
            installed,
            { ...installed, nats: state("0.7.2", { nats: { a: 2 } }), cassandra: state("0.20.1", { x: 1 }) },
            "prod",
        );
        assert.deepEqual(
            warnings.map((w) => w.release),
            ["nats", "cassandra"],
        );
        assert.match(
            warnings[0].message,
            /^this update changes nats \(chart 0\.7\.1 -> 0\.7\.2, its values\) on an installed environment: it restarts NATS, dropping requests in flight/,
        );
        assert.match(warnings[0].message, /Apply it with npm run upgrade -- --stack prod, which drains NATS first/);
        assert.match(warnings[1].message, /changes cassandra \(its values\).*unavailable for about 1-2 minutes/);
        assert.deepEqual(
            restartWarnings(installed, { ...installed, nats: state("^0.7", { nats: { a: 1 } }) }, "dev"),
            [],
            "a range is not compared",
        );
    });

    test("the values digest ignores key order and nulls, and nothing else; keyed, it depends on the key", () => {
        assert.equal(valuesFingerprint({ a: 1, b: { c: [1, { d: null }] } }), valuesFingerprint({ b: { c: [1, {}] }, a: 1 }));
        assert.notEqual(valuesFingerprint({ a: 1 }), valuesFingerprint({ a: "1" }));
        assert.equal(valuesFingerprint({ a: 1, b: null }, "k"), valuesFingerprint({ a: 1 }, "k"));
        assert.notEqual(valuesFingerprint({ a: 1 }, "k"), valuesFingerprint({ a: 1 }, "other"));
    });

    test("a receipt from before the values digest: chart version changes still warn, values are not compared", () => {
        const versionsOnly = { nats: { version: "0.7.1" }, cassandra: { version: "0.20.1" } };
        assert.deepEqual(restartWarnings(versionsOnly, installed, "dev"), []);
        const warnings = restartWarnings(versionsOnly, { ...installed, nats: state("0.7.2", { other: 1 }) }, "dev");
        assert.deepEqual(
            warnings.map((w) => w.release),
            ["nats"],
        );
        assert.match(warnings[0].message, /changes nats \(chart 0\.7\.1 -> 0\.7\.2\) on an installed/);
    });
});
