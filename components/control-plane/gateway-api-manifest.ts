import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { PROJECT } from "../../config/model/project";
import type { ControlPlaneConfig } from "../../config/model/schema";
import { GATEWAY_API, GATEWAY_API_CRDS, gatewayApiVersionSupported } from "../../lib/contracts/gateway-api";
import { loadAllYaml } from "../../lib/kubernetes/yaml";

/** One object of the Gateway API release's manifest. */
export type Manifest = {
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string; annotations?: Record<string, string> };
    status?: unknown;
} & Record<string, unknown>;

/**
 * The Gateway API manifest the stack file names (`ingress.gatewayApi.install.crdsManifest`),
 * read and checked when the program starts, before it declares anything: a missing or wrong file
 * stops it with nothing registered. Undefined when the stack does not install the Gateway API.
 */
export function readGatewayApiManifest(cp: ControlPlaneConfig): Manifest[] | undefined {
    const install = cp.ingress.gatewayApi.install;
    if (!install.enabled) return undefined;
    if (!install.crdsManifest) throw new Error("ingress.gatewayApi.install.crdsManifest is unset (the rules require it)");
    return readManifest(install.crdsManifest);
}

/**
 * The objects of the CRD manifest, read when the program runs: the file is the user's copy of a
 * Gateway API release (no network at run time), parsed by the YAML reader the Kubernetes client uses.
 */
function readManifest(file: string): Manifest[] {
    const key = `${PROJECT}:controlPlane.ingress.gatewayApi.install.crdsManifest`;
    let text: string;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch (err) {
        throw new pulumi.RunError(`${key}: cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
    let docs: unknown[];
    try {
        docs = loadAllYaml(text);
    } catch (err) {
        throw new pulumi.RunError(`${key}: ${file} is not valid YAML: ${(err as Error).message}`, { cause: err });
    }
    const objects = docs.filter((d): d is Manifest => !!d && typeof d === "object" && !Array.isArray(d));
    const bad = objects.find((o) => typeof o.apiVersion !== "string" || typeof o.kind !== "string" || typeof o.metadata?.name !== "string");
    if (bad) throw new pulumi.RunError(`${key}: ${file} holds an object without apiVersion, kind or metadata.name`);
    const problem = gatewayApiManifestProblem(objects);
    if (problem) throw new pulumi.RunError(`${key}: ${file} ${problem}; use ${GATEWAY_API.minVersion}'s experimental-install.yaml`);
    return objects;
}

/**
 * What keeps a CRD file from serving the bundle: a CRD the routes need is missing (the standard
 * channel has no TCPRoute), it is not the experimental channel, or it is older than the routes' kinds.
 */
export function gatewayApiManifestProblem(objects: readonly Manifest[]): string | undefined {
    const crds = new Map(objects.filter((o) => o.kind === "CustomResourceDefinition").map((o) => [String(o.metadata?.name), o] as const));
    const names = GATEWAY_API_CRDS.map((c) => `${c}.${GATEWAY_API.group}`);
    const missing = names.filter((n) => !crds.has(n));
    const present = names.filter((n) => crds.has(n)).map((n) => crds.get(n)!.metadata?.annotations ?? {});
    const channels = [...new Set(present.map((a) => a[GATEWAY_API.channelAnnotation] ?? "none"))];
    const versions = [...new Set(present.map((a) => a[GATEWAY_API.versionAnnotation] ?? "none"))];
    const problems: string[] = [];
    if (missing.length > 0) problems.push(`lacks the CustomResourceDefinitions ${missing.join(", ")}`);
    if (channels.some((c) => c !== GATEWAY_API.channel))
        problems.push(`is the ${channels.join("/")} channel (${GATEWAY_API.channelAnnotation}), not ${GATEWAY_API.channel}`);
    const old = versions.filter((v) => !gatewayApiVersionSupported(v));
    if (old.length > 0)
        problems.push(`is Gateway API ${old.join("/")} (${GATEWAY_API.versionAnnotation}), older than ${GATEWAY_API.minVersion}`);
    return problems.length > 0 ? problems.join("; ") : undefined;
}
