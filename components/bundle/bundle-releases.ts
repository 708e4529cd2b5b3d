import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { chartVersion, grammarString, imageTag } from "../../config/model/grammar";
import { BUNDLED_COMPUTE_PLANE_RELEASES } from "../catalog/compute-plane";
import { RELEASE_NAMES } from "../catalog/control-plane";

/**
 * NVIDIA's bundle releases as data: which chart and image versions make up each release of the
 * control-plane, observability and compute-plane bundles. One JSON file per release in
 * `releases/`, named after it; adding a release is adding its file. Only versions that NVIDIA's
 * sources pin go in, and each file says where they come from.
 */

/** The compute-plane images the bundle pins itself (its `base.yaml`); the control plane's come with each chart. */
export const COMPUTE_PLANE_IMAGES = ["nvca-operator", "nvca", "otel-collector"] as const;
export type ComputePlaneImage = (typeof COMPUTE_PLANE_IMAGES)[number];

/** The directory of this repository's bundle releases. */
export const RELEASES_DIR = path.join(__dirname, "releases");

const version = grammarString(chartVersion);

/** A map that has exactly the given keys, each a chart version. */
function exactly(names: readonly string[], value: z.ZodType<string>) {
    return z.record(z.string(), value).superRefine((map, ctx) => {
        const missing = names.filter((n) => !(n in map));
        const unknown = Object.keys(map).filter((n) => !names.includes(n));
        if (missing.length > 0) ctx.addIssue({ code: "custom", message: `lacks ${missing.join(", ")}` });
        if (unknown.length > 0)
            ctx.addIssue({ code: "custom", message: `names ${unknown.join(", ")}, which this program does not install` });
    });
}

const bundleReleaseSchema = z.strictObject({
    /** The self-managed stack's version, which names the whole bundle release. */
    release: version,
    /** Where the versions come from, for a reviewer to check. */
    source: z.string().min(1),
    controlPlane: z.strictObject({ charts: exactly(RELEASE_NAMES, version) }),
    computePlane: z.strictObject({
        charts: exactly(BUNDLED_COMPUTE_PLANE_RELEASES, version),
        images: exactly(COMPUTE_PLANE_IMAGES, grammarString(imageTag)),
    }),
});

export type BundleRelease = Readonly<z.infer<typeof bundleReleaseSchema>> & {
    readonly computePlane: { readonly images: Readonly<Record<ComputePlaneImage, string>> };
};

/** Semantic versions in precedence order (a leading v ignored; a pre-release before its release; build metadata ignored). */
export function compareVersions(a: string, b: string): number {
    const parse = (v: string) => {
        const [core, pre] = v.replace(/^v/, "").split("+")[0].split(/-(.*)/s);
        return { nums: core.split(".").map(Number), pre: pre ? pre.split(".") : [] };
    };
    const x = parse(a);
    const y = parse(b);
    for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] - y.nums[i];
    if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
    for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
        const [p, q] = [x.pre[i], y.pre[i]];
        if (p === q) continue;
        const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
        if (pn && qn) return Number(p) - Number(q);
        if (pn !== qn) return pn ? -1 : 1;
        return p < q ? -1 : 1;
    }
    return x.pre.length - y.pre.length;
}

/** The bundle releases of a directory, oldest first; a malformed file stops with its name and what is wrong. */
export function loadBundleReleases(dir: string = RELEASES_DIR): BundleRelease[] {
    const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort();
    const releases = files.map((file) => {
        const where = path.join(path.basename(dir), file);
        let json: unknown;
        try {
            json = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
        } catch (error) {
            throw new Error(`bundle release ${where} is not valid JSON: ${(error as Error).message}`, { cause: error });
        }
        const parsed = bundleReleaseSchema.safeParse(json);
        if (!parsed.success) {
            const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
            throw new Error(`bundle release ${where} is malformed: ${problems.join("; ")}`);
        }
        if (`${parsed.data.release}.json` !== file) {
            throw new Error(
                `bundle release ${where} says release ${parsed.data.release}; the file must be named ${parsed.data.release}.json`,
            );
        }
        return parsed.data as BundleRelease;
    });
    if (releases.length === 0) throw new Error(`no bundle release in ${dir}`);
    return releases.sort((a, b) => compareVersions(a.release, b.release));
}

let known: BundleRelease[] | undefined;

/** This repository's bundle releases, oldest first (read once). */
export function bundleReleases(): readonly BundleRelease[] {
    known ??= loadBundleReleases();
    return known;
}

export function bundleReleaseNames(): string[] {
    return bundleReleases().map((r) => r.release);
}

export function findBundleRelease(name: string, releases: readonly BundleRelease[] = bundleReleases()): BundleRelease | undefined {
    return releases.find((r) => r.release === name);
}

/** The release a stack selects: the one it names (already checked to be known), else the newest this repository knows. */
export function selectedBundleRelease(selected: string | undefined, releases: readonly BundleRelease[] = bundleReleases()): BundleRelease {
    const found = selected === undefined ? releases[releases.length - 1] : findBundleRelease(selected, releases);
    if (!found) throw new Error(`no bundle release ${selected}; known: ${releases.map((r) => r.release).join(", ")}`);
    return found;
}
