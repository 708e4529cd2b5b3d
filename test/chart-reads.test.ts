/**
 * Every value the program writes for a chart is one the chart's templates read at the version
 * the bundle pins (test/fixtures/chart-reads.json, read from NVIDIA/nvcf by
 * scripts/parity/chart-reads.ts), or is listed with its reason: the values of a subchart or
 * chart whose source is not in NVIDIA/nvcf, the 1.1.0 switches and the bundle values the pinned
 * charts ignore (test/parity/unread-values.ts), each named in docs/parity.md.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { deepMerge, type Plain } from "../config/model/deep-merge";
import { isRead, type Read } from "../scripts/parity/template-reads";
import { CHART_SOURCES, type ChartReadsFile } from "../scripts/parity/chart-sources";
import { DELIBERATE_DIFFERENCES } from "./parity/differences";
import { programEnvironment, programReleases, type ProgramRelease } from "./parity/environments";
import { UNREAD_VALUES } from "./parity/unread-values";

const TABLE = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "chart-reads.json"), "utf8")) as ChartReadsFile;
const PARITY_DOC = fs.readFileSync(path.join(__dirname, "..", "docs", "parity.md"), "utf8");

/** Every leaf of a values tree as a path; a list's items are "*", an empty map or list is a leaf. */
function leaves(value: unknown, at: string[] = []): string[][] {
    if (Array.isArray(value)) return value.length > 0 ? value.flatMap((v) => leaves(v, [...at, "*"])) : [at];
    if (value !== null && typeof value === "object") {
        const entries = Object.entries(value);
        return entries.length > 0 ? entries.flatMap(([k, v]) => leaves(v, [...at, k])) : [at];
    }
    return [at];
}

const under = (leaf: readonly string[], prefix: string) => {
    const p = prefix.split(".");
    return p.every((part, i) => leaf[i] === part);
};

/** The 1.1.0 switches, each set away from its default, with annotations on every chart that takes them. */
const annotations = { "example.com/owner": "platform" };
const SWITCHES_1_1_0: Plain = {
    nats: { workerAuth: "token", podAnnotations: annotations },
    adminIssuerProxy: { enabled: false },
    natsAuthCalloutService: { podAnnotations: annotations, serviceConfig: { logging: { level: "debug", sampling: { initial: 10 } } } },
    // The 1.0.4 runbook's JWT plugin switch: the program checks the mounts itself and writes no value for it.
    openbao: { server: { annotations }, jwtPluginLifecycle: { mode: "bridge" } },
    ...Object.fromEntries(["api", "nvctApi", "invocation", "grpcproxy", "apikeys", "ess"].map((k) => [k, { podAnnotations: annotations }])),
};

/**
 * Two runs that between them write every value the program can: the parity environments
 * merged (their switches do not exclude each other) with the 1.1.0 switches, and the one
 * whose certificate mode excludes the merged one's.
 */
const MERGED = ["addons", "custom-domain", "partial-blocks", "placement", "storage", "tracing", "llm-pki"];
const RUNS: readonly [string, Plain][] = [
    ["merged environments and 1.1.0 switches", [...MERGED.map(programEnvironment), SWITCHES_1_1_0].reduce((a, b) => deepMerge(a, b))],
    ["llm-pki-existing-secret", programEnvironment("llm-pki-existing-secret")],
];

describe("every value the program writes is one its chart reads, or is listed with its reason", () => {
    const runs = new Map<string, ProgramRelease[]>();
    before(async () => {
        for (const [name, env] of RUNS) runs.set(name, await programReleases(env));
    });

    const reads = (release: string): Read[] => {
        const chart = TABLE.charts[release];
        return [
            ...chart.whole.map((p) => ({ path: p.split("."), whole: true })),
            ...chart.exact.map((p) => ({ path: p.split("."), whole: false })),
        ];
    };

    test("the table covers every release of the catalog whose chart's source is in NVIDIA/nvcf", () => {
        const released = new Set([...runs.values()].flat().map((r) => r.name));
        for (const name of released) {
            const source = CHART_SOURCES[name];
            assert.ok(source, `${name} has no chart source: add it to scripts/parity/chart-sources.ts`);
            if (source.kind === "nvcf") assert.ok(TABLE.charts[name], `${name} is missing from test/fixtures/chart-reads.json`);
        }
    });

    test("each written value is read by the chart at the pinned version, or listed", () => {
        const unlisted: string[] = [];
        for (const [env, releases] of runs) {
            for (const r of releases) {
                const chart = TABLE.charts[r.name];
                if (!chart) continue;
                const external = Object.keys(chart.external ?? {});
                const listed = UNREAD_VALUES.filter((u) => u.release === r.name);
                for (const leaf of leaves(r.values)) {
                    if (listed.some((u) => under(leaf, u.path))) continue;
                    if (isRead(reads(r.name), leaf)) continue;
                    if (external.includes(leaf[0])) continue;
                    unlisted.push(`${env}: ${r.name} ${leaf.join(".")}`);
                }
            }
        }
        assert.deepEqual(
            [...new Set(unlisted)],
            [],
            "values no template of the chart reads: fix the value name, or list it in test/parity/unread-values.ts and docs/parity.md",
        );
    });

    test("no listed value is stale: each is written, and the chart really does not read it", () => {
        for (const u of UNREAD_VALUES) {
            const written = [...runs.values()]
                .flat()
                .filter((r) => r.name === u.release)
                .flatMap((r) => leaves(r.values))
                .filter((leaf) => under(leaf, u.path));
            assert.ok(written.length > 0, `${u.release} ${u.path}: no run writes it`);
            assert.ok(
                written.some((leaf) => !isRead(reads(u.release), leaf)),
                `${u.release} ${u.path}: the chart reads it now; remove it from the list`,
            );
        }
    });

    test("docs/parity.md names every listed value, deliberate difference and chart outside NVIDIA/nvcf", () => {
        for (const u of UNREAD_VALUES) assert.ok(PARITY_DOC.includes(`\`${u.path}\``), `docs/parity.md does not name ${u.path}`);
        for (const d of DELIBERATE_DIFFERENCES) assert.ok(PARITY_DOC.includes(`\`${d.path}\``), `docs/parity.md does not name ${d.path}`);
        for (const [release, source] of Object.entries(CHART_SOURCES)) {
            if (source.kind === "outside") assert.ok(PARITY_DOC.includes(`\`${release}\``), `docs/parity.md does not name ${release}`);
        }
        for (const chart of Object.values(TABLE.charts)) {
            for (const key of Object.keys(chart.external ?? {}))
                assert.ok(PARITY_DOC.includes(`\`${key}.*\``), `docs/parity.md does not name ${key}.*`);
        }
    });
});
