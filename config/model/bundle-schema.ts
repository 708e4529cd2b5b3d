import { z } from "zod";
import { chartVersion, grammarString } from "./grammar";
import type { ConfigProblem } from "./errors";
import { PROJECT } from "./project";

/**
 * `bundle`: which of NVIDIA's bundle releases the environment runs (components/bundle/releases/).
 * Unset: the newest this checkout of the program knows, so pulling a newer program moves the
 * stack's desired state; pin it to upgrade on your own schedule (`npm run upgrade`).
 */
export const bundleSchema = z
    .strictObject({
        release: grammarString(chartVersion).optional(),
    })
    .prefault({});

export type BundleConfig = z.infer<typeof bundleSchema>;

/** The named release must be one this program knows; `known` unset skips the check (a caller without the catalog). */
export function bundleProblems(bundle: BundleConfig, known: readonly string[] | undefined): ConfigProblem[] {
    if (!known || bundle.release === undefined || known.includes(bundle.release)) return [];
    return [
        {
            key: `${PROJECT}:bundle.release`,
            message: "is not a bundle release this program knows (a newer checkout of the program may know it)",
            given: bundle.release,
            allowed: known.join(", "),
        },
    ];
}
