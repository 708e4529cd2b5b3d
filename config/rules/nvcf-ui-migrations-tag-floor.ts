import type { ControlPlaneRule } from "./rule";

/** nvcf-ui's OpenBao migrations need an image of 0.16.2 or newer. */
export const nvcfUiMigrationsTagFloor: ControlPlaneRule = (cp) => {
    const tag = cp.addons.nvcfUi.openbaoMigrations.image.tag;
    // global.yaml.gotmpl silently ignores a tag under its 0.16.2 floor; we say so instead.
    if (cp.addons.nvcfUi.enabled && tag && compareVersions(tag, "0.16.2") < 0) {
        return [
            {
                path: "addons.nvcfUi.openbaoMigrations.image.tag",
                message: "the nvcf-ui OpenBao migrations need 0.16.2 or newer",
                given: tag,
                allowed: ">= 0.16.2",
            },
        ];
    }
    return [];
};

function compareVersions(a: string, b: string): number {
    const parse = (v: string) =>
        v
            .replace(/^v/, "")
            .split(/[.-]/)
            .slice(0, 3)
            .map((p) => Number(p) || 0);
    const [pa, pb] = [parse(a), parse(b)];
    for (let i = 0; i < 3; i++) {
        if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
    }
    return 0;
}
