/**
 * The value paths each control-plane chart reads, from the charts' sources in NVIDIA/nvcf, at
 * the pinned version where the repository tags it, and the environment keys the pinned bundle
 * reads: `test/fixtures/chart-reads.json`. The unit tests check every value the program writes
 * against the first (test/chart-reads.test.ts), and the environment schema against the second.
 *
 *   NVCF_BUNDLE=/path/to/nvcf.git npm run --silent chart-reads            # compare with the file
 *   NVCF_BUNDLE=/path/to/nvcf.git npm run --silent chart-reads -- --write # rewrite it
 *
 * NVCF_BUNDLE must be a git directory of NVIDIA/nvcf (bare or not): the charts are read at their
 * release tags. The file holds paths (facts about the charts), never their text.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { templateReads, type Read } from "./template-reads";
import { CHART_SOURCES, type ChartReads, type ChartReadsFile, type ChartSource } from "./chart-sources";
import { PINNED_BUNDLE } from "./tools";
import { wantsHelp } from "../lib/cli";

const FILE = path.resolve(__dirname, "..", "..", "test", "fixtures", "chart-reads.json");

/** A chart directory of the repository at a ref, extracted to a temporary directory. */
function extract(git: string, ref: string, dir: string, into: string): string {
    const archive = execFileSync("git", ["--git-dir", git, "archive", ref, dir], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
    fs.mkdirSync(into, { recursive: true });
    execFileSync("tar", ["-x", "-C", into], { input: archive });
    return path.join(into, dir);
}

/** The chart's templates, and its values.yaml: charts `tpl` strings of their own values (hostnames, names). */
function texts(dir: string): string[] {
    const templates = path.join(dir, "templates");
    const files = fs.existsSync(templates)
        ? fs
              .readdirSync(templates, { recursive: true })
              .map(String)
              .filter((f) => /\.(ya?ml|tpl|txt|json)$/.test(f))
              .map((f) => path.join(templates, f))
        : [];
    const values = path.join(dir, "values.yaml");
    return [...files, ...(fs.existsSync(values) ? [values] : [])].map((f) => fs.readFileSync(f, "utf8"));
}

interface Dependency {
    name: string;
    alias?: string;
    version?: string;
    repository?: string;
    condition?: string;
}

/** Reads of a chart and of its vendored subcharts (under their key, `global` shared), and its other subcharts. */
function chartReads(dir: string): { reads: Read[]; external: Record<string, string> } {
    const chart = parse(fs.readFileSync(path.join(dir, "Chart.yaml"), "utf8")) as { dependencies?: Dependency[] };
    const reads = [...templateReads(texts(dir))];
    const external: Record<string, string> = {};
    for (const dep of chart.dependencies ?? []) {
        const key = dep.alias ?? dep.name;
        for (const condition of (dep.condition ?? "").split(",").filter(Boolean))
            reads.push({ path: condition.trim().split("."), whole: false });
        const vendored = path.join(dir, "charts", dep.name);
        if (fs.existsSync(path.join(vendored, "Chart.yaml"))) {
            // A subchart's values are its key's; its `global` is the parent's, merged with its key's own.
            for (const r of chartReads(vendored).reads) {
                reads.push({ ...r, path: [key, ...r.path] });
                if (r.path[0] === "global") reads.push(r);
            }
        } else {
            external[key] = `${dep.name} ${dep.version ?? ""} (${dep.repository ?? "no repository"})`.replace("  ", " ");
        }
    }
    return { reads, external };
}

/** Fewest paths that say the same: nothing under a path read whole, no duplicates. */
function compact(reads: readonly Read[]): { whole: string[]; exact: string[] } {
    const key = (p: readonly string[]) => p.join(".");
    const whole = [...new Set(reads.filter((r) => r.whole).map((r) => key(r.path)))].sort();
    const covered = (p: string) => whole.some((w) => p.startsWith(`${w}.`));
    return {
        whole: whole.filter((w) => !covered(w)),
        exact: [...new Set(reads.filter((r) => !r.whole).map((r) => key(r.path)))].filter((p) => !whole.includes(p) && !covered(p)).sort(),
    };
}

/**
 * The environment keys the bundle reads: its templates' reads (the self-managed and the
 * observability helmfiles, `global.yaml.gotmpl`, the VictoriaMetrics values) and `condition:`s.
 */
export function bundleKeys(stacks: string): string[] {
    const dirs = [
        ["self-managed", "helmfile.d"],
        ["observability", "helmfile.d"],
        ["observability", "values"],
    ];
    const files = [
        path.join(stacks, "self-managed", "global.yaml.gotmpl"),
        ...dirs.flatMap((d) => fs.readdirSync(path.join(stacks, ...d)).map((f) => path.join(stacks, ...d, f))),
    ];
    const texts = files.map((f) => fs.readFileSync(f, "utf8"));
    const conditions = texts.flatMap((t) => [...t.matchAll(/^\s*condition:\s*([\w.]+)/gm)].map((m) => m[1].split(".")));
    const paths = [...templateReads(texts).map((r) => r.path), ...conditions].filter((p) => p.length > 0 && !p.includes("*"));
    return [...new Set(paths.map((p) => p.join(".")))].sort();
}

function build(git: string): ChartReadsFile {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-chart-reads-"));
    try {
        const stacks = extract(git, PINNED_BUNDLE.commit, "deploy/stacks", path.join(work, "bundle"));
        const environmentKeys = bundleKeys(stacks);
        const charts: Record<string, ChartReads> = {};
        for (const [release, source] of Object.entries(CHART_SOURCES) as [string, ChartSource][]) {
            if (source.kind === "outside") continue;
            const ref = source.tag ?? PINNED_BUNDLE.commit;
            const dir = extract(git, ref, source.dir, path.join(work, release));
            const { reads, external } = chartReads(dir);
            charts[release] = { source: source.dir, ref, ...compact(reads), ...(Object.keys(external).length > 0 ? { external } : {}) };
        }
        return { bundle: { tag: PINNED_BUNDLE.tag, commit: PINNED_BUNDLE.commit }, environmentKeys, charts };
    } finally {
        fs.rmSync(work, { recursive: true, force: true });
    }
}

const HELP = `usage: npm run --silent chart-reads [-- --write]      (with NVCF_BUNDLE=<git dir of NVIDIA/nvcf>)

Reads, from the charts' sources in NVIDIA/nvcf at the pinned versions, the value paths each
control-plane chart reads and the environment keys the bundle reads, and compares them with
test/fixtures/chart-reads.json.
  --write                    rewrite the file instead (review the diff)
Exit: 0 the file matches (or was written), 1 it differs, 2 NVCF_BUNDLE is not set or missing.
`;

function main(argv: readonly string[]): number {
    if (wantsHelp(argv)) {
        process.stdout.write(HELP);
        return 0;
    }
    const git = process.env.NVCF_BUNDLE;
    if (!git || !fs.existsSync(git)) {
        console.error("chart-reads: set NVCF_BUNDLE to a git directory of NVIDIA/nvcf");
        return 2;
    }
    const text = `${JSON.stringify(build(git), null, 2)}\n`;
    if (argv.includes("--write")) {
        fs.writeFileSync(FILE, text);
        console.log(`chart-reads: wrote ${path.relative(process.cwd(), FILE)}`);
        return 0;
    }
    if (fs.existsSync(FILE) && fs.readFileSync(FILE, "utf8") === text) {
        console.log("chart-reads: test/fixtures/chart-reads.json matches the charts");
        return 0;
    }
    console.error(
        "chart-reads: test/fixtures/chart-reads.json differs from the charts' sources; rewrite it with --write and review the diff",
    );
    return 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

export { build as buildChartReads };
