import type { ResourceValidationArgs } from "@pulumi/policy";
import { at, isList, isRecord, plain, type Plain, type PlainRecord } from "./known";

/** Kubernetes kinds that carry a pod spec, and where it is (Patch variants included). */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
    Pod: ["spec"],
    Deployment: ["spec", "template", "spec"],
    StatefulSet: ["spec", "template", "spec"],
    DaemonSet: ["spec", "template", "spec"],
    ReplicaSet: ["spec", "template", "spec"],
    ReplicationController: ["spec", "template", "spec"],
    Job: ["spec", "template", "spec"],
    CronJob: ["spec", "jobTemplate", "spec", "template", "spec"],
};
const WORKLOAD_TYPE = /^kubernetes:(?:core|apps|batch|extensions)\/[^:]+:([A-Za-z]+?)(?:Patch)?$/;

/** A Kubernetes workload object as plain data. */
export interface Workload {
    readonly kind: string;
    readonly props: Plain;
    readonly podSpec: Plain | undefined;
}

export function workloadFromArgs(args: ResourceValidationArgs): Workload | undefined {
    const kind = WORKLOAD_TYPE.exec(args.type)?.[1];
    const path = kind === undefined ? undefined : POD_SPEC_PATHS[kind];
    if (kind === undefined || path === undefined) return undefined;
    const props = plain(args.props);
    return { kind, props, podSpec: at(props, ...path) };
}

/** Every container of a pod spec, init and ephemeral ones included. */
export function containers(podSpec: Plain | undefined): PlainRecord[] {
    return ["initContainers", "containers", "ephemeralContainers"].flatMap((field) => {
        const list = at(podSpec, field);
        return isList(list) ? list.filter(isRecord) : [];
    });
}

/** "Deployment nvcf/api" for messages. */
export function describe(workload: Workload): string {
    const name = at(workload.props, "metadata", "name");
    const namespace = at(workload.props, "metadata", "namespace");
    const ns = typeof namespace === "string" ? `${namespace}/` : "";
    return `${workload.kind} ${ns}${typeof name === "string" ? name : "(unnamed)"}`;
}
