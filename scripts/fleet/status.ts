import { STACK_API, type OperatorStack } from "../../lib/contracts/pulumi-operator";
import { getObject, type Kube } from "../../lib/kubernetes/client";
import type { FleetEnvironment } from "./fleet-file";
import type { EnvironmentStatus } from "./format";
import { lockReport } from "./locks";

const GROUP_PATH = `/apis/${STACK_API.group}/${STACK_API.version}`;

/** The operator's Stack CRD is not served: the operator is not installed (or not yet). */
export class NoStackCrd extends Error {
    override readonly name = "NoStackCrd";
}

/**
 * Each environment's Stack, read through the API server (GET only), and the lock its last
 * failed update reported.
 */
export async function readFleetStatus(kube: Kube, environments: readonly FleetEnvironment[]): Promise<EnvironmentStatus[]> {
    const group = await getObject(kube, GROUP_PATH);
    const served = Array.isArray(group?.resources) && group.resources.some((r: { name?: string }) => r.name === STACK_API.plural);
    if (!served) {
        throw new NoStackCrd(
            `the cluster at ${kube.server} serves no ${STACK_API.plural}.${STACK_API.group}/${STACK_API.version}: ` +
                "the Pulumi Kubernetes Operator is not installed there (run `pulumi up` in fleet/, or check --kubeconfig and --context)",
        );
    }
    const out: EnvironmentStatus[] = [];
    for (const env of environments) {
        const stack = (await getObject(kube, `${GROUP_PATH}/namespaces/${env.namespace}/${STACK_API.plural}/${env.name}`)) as
            OperatorStack | undefined;
        out.push({ name: env.name, namespace: env.namespace, stack, lock: lockReport(stack) });
    }
    return out;
}
