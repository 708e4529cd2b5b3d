import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/model/schema";
import type { Manifest } from "./gateway-api-manifest";
import type { ChartCredentials, HelmSources } from "../kubernetes/chart-source";
import { ENVOY_GATEWAY } from "../catalog/prerequisites";
import { declareRelease, releaseValues, versionOf } from "../release/declare";

/** The label by which the Gateways' listeners select the namespaces they admit routes from; the Gateways' namespaces carry it too. */
export const GATEWAY_ROUTE_LABEL = { "nvcf/platform": "true" } as const;
/** Envoy Gateway's controller, which a GatewayClass names to be served by it. */
export const ENVOY_GATEWAY_CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller";

export interface GatewayListener {
    readonly name: string;
    readonly protocol: "HTTP" | "TCP";
    readonly port: number;
}

export interface GatewaySpec {
    readonly name: string;
    readonly namespace: string;
    readonly listeners: readonly GatewayListener[];
}

/**
 * The Gateways the bundle's routes attach to, each with exactly the listeners its routes name:
 * `http` 80 on the shared Gateway (the HTTPRoutes), `tcp` 10081 on the gRPC Gateway (the `grpc`
 * TCPRoute), the worker listener (10086) there when the worker route is on, and the NATS listener
 * (4222) on the NATS Gateway when the NATS route is on. Gateways named alike are one Gateway.
 */
export function gatewaySpecs(cp: ControlPlaneConfig): GatewaySpec[] {
    const gw = cp.ingress.gatewayApi;
    const byKey = new Map<string, { name: string; namespace: string; listeners: GatewayListener[] }>();
    const add = (ref: { name: string; namespace: string }, listener: GatewayListener) => {
        const key = `${ref.namespace}/${ref.name}`;
        const spec = byKey.get(key) ?? { name: ref.name, namespace: ref.namespace, listeners: [] };
        if (!spec.listeners.some((l) => l.name === listener.name)) spec.listeners.push(listener);
        byKey.set(key, spec);
    };
    add(gw.gateways.shared, { name: "http", protocol: "HTTP", port: 80 });
    add(gw.gateways.grpc, { name: "tcp", protocol: "TCP", port: 10081 });
    if (gw.routes.grpcWorker.enabled) add(gw.gateways.grpc, { name: gw.routes.grpcWorker.listenerName, protocol: "TCP", port: 10086 });
    if (gw.routes.nats.enabled) add(gw.gateways.nats, { name: gw.gateways.nats.listenerName, protocol: "TCP", port: 4222 });
    return [...byKey.values()];
}

/** The namespaces the Gateways live in: owned, and labelled, by the stack when it installs them. */
export function gatewayNamespaces(cp: ControlPlaneConfig): string[] {
    return [...new Set(gatewaySpecs(cp).map((g) => g.namespace))];
}

export interface GatewayPrerequisitesArgs {
    readonly cp: ControlPlaneConfig;
    /** The Gateway API manifest's objects, read and checked before the program declared anything (gateway-api-manifest.ts). */
    readonly manifest: readonly Manifest[];
    /** The stack's namespaces: the controller's and the Gateways' among them. */
    readonly namespaces: Readonly<Record<string, k8s.core.v1.Namespace>>;
    /** What the controller's pods need first in its namespace (the pull secret, the Kyverno policy). */
    readonly controllerNeeds: readonly pulumi.Resource[];
    readonly sources: { readonly chartSources: HelmSources; readonly chartAuth?: ChartCredentials };
    readonly skipAwait: boolean;
    /** The Gateway DNS records point at: its creation waits until its load balancer reports an address. */
    readonly awaitAddress?: { readonly name: string; readonly namespace: string };
}

/** The kubernetes provider waits until this JSONPath is set (pulumi-kubernetes 4.18+): the load balancer's address. */
const ADDRESS_WAIT = { "pulumi.com/waitFor": "jsonpath={.status.addresses[0].value}" } as const;

/**
 * What the README used to list as prerequisites of the routes, installed with the stack: the
 * Gateway API CRDs from the user's manifest, Envoy Gateway from its chart, a GatewayClass served
 * by it, and the Gateways. Each depends on the one before, and the control plane's releases on
 * the Gateways, so destroy removes the releases first, then the Gateways (while the controller
 * still runs to clear their finalizers), the controller, and the CRDs last.
 */
export class GatewayPrerequisites extends pulumi.ComponentResource {
    /** The Gateway API CRDs, from the manifest the stack names. */
    readonly crds: pulumi.CustomResource[];
    /** Envoy Gateway's release. */
    readonly controller: k8s.helm.v3.Release;
    /** The GatewayClass of Envoy Gateway's controller. */
    readonly gatewayClass: k8s.apiextensions.CustomResource;
    /** The Gateways the routes attach to. */
    readonly gateways: k8s.apiextensions.CustomResource[];
    /** The Gateway of `awaitAddress`, when the stack installs it. */
    readonly addressedGateway?: k8s.apiextensions.CustomResource;

    constructor(name: string, args: GatewayPrerequisitesArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:control-plane:GatewayPrerequisites", name, {}, opts);
        const { cp } = args;
        const install = cp.ingress.gatewayApi.install;
        const skipAwait = args.skipAwait ? { "pulumi.com/skipAwait": "true" } : undefined;

        this.crds = args.manifest.map((doc) => {
            const { status: _status, ...object } = doc;
            const objectName = `${name}-${String(doc.kind).toLowerCase()}-${String(doc.metadata?.name)}`;
            return doc.kind === "CustomResourceDefinition"
                ? new k8s.apiextensions.v1.CustomResourceDefinition(
                      objectName,
                      object as unknown as k8s.apiextensions.v1.CustomResourceDefinitionArgs,
                      {
                          parent: this,
                      },
                  )
                : new k8s.apiextensions.CustomResource(objectName, object as k8s.apiextensions.CustomResourceArgs, { parent: this });
        });

        const controllerNamespace = args.namespaces[cp.ingress.gatewayApi.controllerNamespace];
        this.controller = declareRelease(
            {
                logicalName: `${name}-envoy-gateway`,
                entry: ENVOY_GATEWAY,
                settings: cp,
                namespace: controllerNamespace.metadata.name,
                version: versionOf(ENVOY_GATEWAY, cp, {}),
                values: releaseValues(ENVOY_GATEWAY, cp),
                sources: args.sources,
                skipAwait: args.skipAwait,
            },
            // The stack's CRDs first: the chart's own copy of them is then skipped by Helm, never installed twice.
            { parent: this, dependsOn: [controllerNamespace, ...args.controllerNeeds, ...this.crds] },
        );

        this.gatewayClass = new k8s.apiextensions.CustomResource(
            `${name}-class`,
            {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "GatewayClass",
                metadata: { name: install.gatewayClassName, ...(skipAwait ? { annotations: skipAwait } : {}) },
                spec: { controllerName: ENVOY_GATEWAY_CONTROLLER },
            },
            { parent: this, dependsOn: [...this.crds, this.controller] },
        );

        const specs = gatewaySpecs(cp);
        this.gateways = specs.map((gateway) => {
            const ns = args.namespaces[gateway.namespace];
            const addressed = gateway.name === args.awaitAddress?.name && gateway.namespace === args.awaitAddress.namespace;
            const annotations = skipAwait ?? (addressed ? ADDRESS_WAIT : undefined);
            return new k8s.apiextensions.CustomResource(
                `${name}-${gateway.namespace}-${gateway.name}`,
                {
                    apiVersion: "gateway.networking.k8s.io/v1",
                    kind: "Gateway",
                    metadata: { name: gateway.name, namespace: ns.metadata.name, ...(annotations ? { annotations } : {}) },
                    spec: {
                        gatewayClassName: install.gatewayClassName,
                        listeners: gateway.listeners.map((l) => ({
                            ...l,
                            allowedRoutes: { namespaces: { from: "Selector", selector: { matchLabels: { ...GATEWAY_ROUTE_LABEL } } } },
                        })),
                    },
                },
                { parent: this, dependsOn: [ns, this.gatewayClass, this.controller, ...this.crds] },
            );
        });
        const addressedAt = specs.findIndex((g) => g.name === args.awaitAddress?.name && g.namespace === args.awaitAddress.namespace);
        if (addressedAt >= 0) this.addressedGateway = this.gateways[addressedAt];
        this.registerOutputs({ gateways: this.gateways.map((g) => g.metadata.name) });
    }
}
