import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export interface InotifyTunerArgs {
    /** The init image that writes the sysctls (mirror it for air-gapped clusters). */
    readonly initImage: string;
    readonly pauseImage: string;
    /** Do not wait for the DaemonSet to roll out (clusters with no nodes). */
    readonly skipAwait: boolean;
}

/** The limits the runbook sets, and the CLI's preflight requires, on every node. */
export const INOTIFY_LIMITS = { max_user_instances: 8192, max_user_watches: 524288 } as const;

const LABELS = { "app.kubernetes.io/name": "node-inotify-tuner" };

/** The init container's script, as the runbook writes it: persist the limits, then apply them. */
export function sysctlScript(): string {
    const lines = Object.entries(INOTIFY_LIMITS).map(([k, v]) => `fs.inotify.${k}=${v}`);
    return [
        "set -e",
        "mkdir -p /host/etc/sysctl.d",
        "{",
        ...lines.map((l) => `  echo '${l}'`),
        "} > /host/etc/sysctl.d/99-inotify.conf",
        ...lines.map((l) => `nsenter -t 1 -m -u -i -n -p -- sysctl -w ${l}`),
        "",
    ].join("\n");
}

/**
 * The `node-inotify-tuner` DaemonSet in `kube-system`, exactly as NVIDIA's runbook specifies (what
 * a user following the runbook applies by hand; the install benchmark applies it so for Helmfile).
 */
export function inotifyTunerDaemonSet(args: Omit<InotifyTunerArgs, "skipAwait">) {
    return {
        apiVersion: "apps/v1" as const,
        kind: "DaemonSet" as const,
        metadata: {
            name: "node-inotify-tuner",
            namespace: "kube-system",
            labels: LABELS,
        },
        spec: {
            selector: { matchLabels: LABELS },
            template: {
                metadata: { labels: LABELS },
                spec: {
                    hostPID: true,
                    tolerations: [{ operator: "Exists" }],
                    priorityClassName: "system-node-critical",
                    terminationGracePeriodSeconds: 1,
                    initContainers: [
                        {
                            name: "set-sysctl",
                            image: args.initImage,
                            securityContext: { privileged: true },
                            command: ["sh", "-c", sysctlScript()],
                            volumeMounts: [{ name: "host", mountPath: "/host" }],
                        },
                    ],
                    containers: [
                        {
                            name: "pause",
                            image: args.pauseImage,
                            resources: {
                                requests: { cpu: "1m", memory: "1Mi" },
                                limits: { cpu: "10m", memory: "16Mi" },
                            },
                        },
                    ],
                    volumes: [{ name: "host", hostPath: { path: "/" } }],
                },
            },
        },
    };
}

/** The runbook's DaemonSet (inotifyTunerDaemonSet): NVCA's file watchers exhaust the 128 inotify instances some node images allow. */
export class InotifyTuner extends pulumi.ComponentResource {
    /** The DaemonSet that raises each node's inotify limits. */
    readonly daemonSet: k8s.apps.v1.DaemonSet;

    constructor(name: string, args: InotifyTunerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:compute-plane:InotifyTuner", name, {}, opts);
        const manifest = inotifyTunerDaemonSet(args);
        this.daemonSet = new k8s.apps.v1.DaemonSet(
            `${name}-daemonset`,
            {
                ...manifest,
                metadata: { ...manifest.metadata, ...(args.skipAwait ? { annotations: { "pulumi.com/skipAwait": "true" } } : {}) },
            },
            // The runbook waits five minutes for the rollout.
            { parent: this, dependsOn: opts?.dependsOn, customTimeouts: { create: "5m", update: "5m" } },
        );
        this.registerOutputs({ name: this.daemonSet.metadata.name });
    }
}
