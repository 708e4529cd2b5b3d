import { listItems, type Kube } from "../kubernetes/client";
import { NATS } from "./contract";

/** A NATS server pod and its monitoring port, reached through the API server's pod proxy. */
export interface NatsServerPod {
    readonly name: string;
    readonly port: number;
}

interface Pod {
    metadata?: { name?: string };
    spec?: { containers?: { name?: string; ports?: { name?: string; containerPort?: number }[] }[] };
}

/** The pods running a `nats` container (the runbook's pick: the auth callout's pods have none), each with its monitoring port. */
export async function natsServers(kube: Kube): Promise<NatsServerPod[]> {
    const pods = (await listItems(kube, `/api/v1/namespaces/${NATS.namespace}/pods`)) as Pod[];
    return pods.flatMap((pod) => {
        const container = pod.spec?.containers?.find((c) => c.name === NATS.container);
        if (!container || !pod.metadata?.name) return [];
        const port = container.ports?.find((p) => p.name === NATS.monitorPortName)?.containerPort ?? NATS.monitorPort;
        return [{ name: pod.metadata.name, port }];
    });
}

/** A monitoring endpoint's path on one server, through the pod proxy (`/jsz?…`, `/connz?…`). */
export const monitorPath = (pod: NatsServerPod, endpoint: string): string =>
    `/api/v1/namespaces/${NATS.namespace}/pods/${pod.name}:${pod.port}/proxy/${endpoint}`;
