import type { ControlPlaneRule, Problem } from "./rule";

/** The image and chart repositories must not be the bundle's placeholder (a chart URL or path replaces the chart one). */
export const placeholderRepositories: ControlPlaneRule = (cp) => {
    const problems: Problem[] = [];
    const placeholder = "YOUR_ORG/YOUR_TEAM";
    if (cp.global.image.repository === placeholder) {
        problems.push({
            path: "global.image.repository",
            message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            given: placeholder,
            allowed: "e.g. my-org/my-team",
        });
    }
    const sources = cp.global.helm.sources;
    if (!sources.url && !sources.path && sources.repository === placeholder) {
        problems.push({
            path: "global.helm.sources.repository",
            message: "still the bundle's placeholder; set the org/team (or mirror path) that holds the NVCF charts",
            given: placeholder,
            allowed: "e.g. my-org/my-team, or set global.helm.sources.url or .path instead",
        });
    }
    return problems;
};
