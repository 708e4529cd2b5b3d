/**
 * The parity environments (test/parity/environments/*.yaml, this repository's own inputs) and
 * what both sides of the comparison are given for them: the program runs with the environment
 * as `controlPlane` and these secrets; Helmfile with the same environment, the Gateway state
 * values NVIDIA's own stack tests pass, and a secrets file holding what the program derives
 * from the same secrets.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { deepMerge, type Plain } from "../../config/model/deep-merge";
import { PROJECT } from "../../scripts/lib/dev-stack";
import { runProgram } from "../support/program-runs";
import { RELEASE_TYPE } from "../support/harness";
import { CASSANDRA_PASSWORD, NGC_KEY, PULL_SECRET } from "./bundle-secrets";

export { bundleSecrets } from "./bundle-secrets";

const DIR = path.join(__dirname, "environments");

export const ENVIRONMENTS: readonly string[] = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();

export function environment(name: string): Plain {
    return (parse(fs.readFileSync(path.join(DIR, `${name}.yaml`), "utf8")) ?? {}) as Plain;
}

/** What every environment gets: real image and chart repositories (the placeholder is refused here). */
const REPOSITORIES: Plain = {
    global: {
        image: { registry: "nvcr.io", repository: "acme/nvcf" },
        helm: { sources: { registry: "nvcr.io", repository: "acme/nvcf" } },
    },
};

/** The Gateway values NVIDIA's stack tests pass with `--state-values-set` (global.yaml.gotmpl requires them). */
export const GATEWAY_STATE_VALUES: Readonly<Record<string, string>> = {
    "ingress.gatewayApi.controllerNamespace": "envoy-gateway-system",
    "ingress.gatewayApi.gateways.shared.name": "shared-gw",
    "ingress.gatewayApi.gateways.shared.namespace": "envoy-gateway-system",
    "ingress.gatewayApi.gateways.grpc.name": "grpc-gw",
    "ingress.gatewayApi.gateways.grpc.namespace": "envoy-gateway-system",
};

function nested(flat: Readonly<Record<string, string>>): Plain {
    let out: Plain = {};
    for (const [key, value] of Object.entries(flat)) {
        const node = key
            .split(".")
            .reverse()
            .reduce<unknown>((acc, part) => ({ [part]: acc }), value) as Plain;
        out = deepMerge(out, node);
    }
    return out;
}

/** The environment the program is given. */
export function programEnvironment(name: string): Plain {
    return deepMerge(deepMerge(REPOSITORIES, nested(GATEWAY_STATE_VALUES)), environment(name));
}

/**
 * The environment Helmfile is given: the same, with the program's own pull secret added to
 * `global.imagePullSecrets` (the program hands every chart its pull secret after the
 * configured ones), and without the Gateway values, which come as state values.
 */
export function bundleEnvironment(name: string): Plain {
    const env = deepMerge(REPOSITORIES, environment(name));
    const global = (env.global ?? {}) as Plain;
    const secrets = (global.imagePullSecrets ?? []) as { name: string }[];
    const withOurs = secrets.some((s) => s.name === PULL_SECRET) ? secrets : [...secrets, { name: PULL_SECRET }];
    return deepMerge(env, { global: { imagePullSecrets: withOurs } });
}

export interface ProgramRelease {
    readonly name: string;
    readonly namespace: string;
    readonly chart: string;
    readonly version: string;
    readonly values: Record<string, unknown>;
}

/** The control plane's releases as the program declares them for this environment (mock engine). */
export async function programReleases(controlPlane: Plain): Promise<ProgramRelease[]> {
    const config = {
        "pulumi:disable-default-providers": ["kubernetes"],
        [`${PROJECT}:cluster`]: { clusterIdentifier: "parity" },
        [`${PROJECT}:controlPlane`]: controlPlane,
        [`${PROJECT}:ngcApiKey`]: NGC_KEY,
        [`${PROJECT}:cassandraPassword`]: CASSANDRA_PASSWORD,
    };
    const run = await runProgram(config, [`${PROJECT}:ngcApiKey`, `${PROJECT}:cassandraPassword`]);
    return run.resources
        .filter((r) => r.type === RELEASE_TYPE && r.parent.endsWith("::control-plane"))
        .map((r) => ({
            name: String(r.inputs.name),
            namespace: String(r.inputs.namespace),
            chart: path.basename(String(r.inputs.chart)),
            version: String(r.inputs.version),
            values: r.inputs.values as Record<string, unknown>,
        }));
}
