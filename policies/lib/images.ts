import { isList, isRecord, type Plain } from "./known";

/** Why an image reference would pull a moving target, or undefined when it is pinned. */
export function imageRefProblem(image: string): string | undefined {
    const [name, digest] = image.split("@");
    if (digest) return undefined;
    // The tag follows the last colon after the last slash; earlier colons are a registry port.
    const lastPart = name.slice(name.lastIndexOf("/") + 1);
    const colon = lastPart.indexOf(":");
    if (colon < 0) return "has no tag (Kubernetes pulls latest)";
    if (lastPart.slice(colon + 1).toLowerCase() === "latest") return "uses the latest tag";
    return undefined;
}

/** A values key that holds an image: `image`, `agentImage`, `collectorImage`, ... */
const IMAGE_KEY = /(?:^i|I)mage$/;

/**
 * Images set in Helm values that float: a full reference string under an image key without a
 * pinned tag, or an image map whose `tag` is `latest`. A map without a tag is left alone: the
 * chart then uses its own pinned appVersion.
 */
export function valueImageProblems(values: Plain | undefined): { path: string; problem: string }[] {
    const found: { path: string; problem: string }[] = [];
    const walk = (value: Plain | undefined, path: string[]): void => {
        if (isList(value)) value.forEach((item, i) => walk(item, [...path, String(i)]));
        if (!isRecord(value)) return;
        for (const [key, item] of Object.entries(value)) {
            const itemPath = [...path, key];
            if (IMAGE_KEY.test(key) && typeof item === "string" && item !== "") {
                const problem = imageRefProblem(item);
                if (problem) found.push({ path: itemPath.join("."), problem: `"${item}" ${problem}` });
            } else if (IMAGE_KEY.test(key) && isRecord(item) && typeof item.tag === "string" && item.tag.toLowerCase() === "latest") {
                found.push({ path: `${itemPath.join(".")}.tag`, problem: "is latest" });
            }
            walk(item, itemPath);
        }
    };
    walk(values, []);
    return found;
}
