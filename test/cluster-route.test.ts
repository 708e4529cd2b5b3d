/**
 * How each cluster of a stack is reached, as its settings say (lib/cluster-access/route.ts): the
 * settings are parsed by the program's own config code and its rules, so each case is one a
 * stack file can hold.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Settings } from "../config/settings";
import { clusterRoute, eksClusterIdentifier } from "../lib/cluster-access/route";
import { devRaw, parse, type RawChanges } from "./support/raw-config";

const EKS = { name: "nvcf-cp", region: "us-west-2", profile: "platform", roleArn: "arn:aws:iam::123456789012:role/nvcf-deployer" };
const KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\n";

/** The dev stack (control plane on the default kubeconfig, cluster.clusterIdentifier dev), changed as asked. */
function settings(changes: RawChanges = {}): Settings {
    return parse(devRaw(changes));
}

/** The dev stack with these compute planes. */
function withPlanes(planes: readonly unknown[], changes: RawChanges = {}): Settings {
    return settings({ ...changes, values: { ...changes.values, computePlanes: planes } });
}

describe("the control plane's cluster", () => {
    test("with no kubeconfig secret and no context: the default kubeconfig's current context, under the stack's identifier", () => {
        assert.deepEqual(clusterRoute(settings(), "control-plane"), {
            kind: "default-kubeconfig",
            clusterIdentifier: "dev",
            skipAwait: false,
        });
    });

    test("a context without the secret picks that context of the default kubeconfig", () => {
        assert.deepEqual(clusterRoute(settings({ values: { cluster: { context: "admin@cp" } } }), "control-plane"), {
            kind: "default-kubeconfig",
            context: "admin@cp",
            clusterIdentifier: "dev",
            skipAwait: false,
        });
    });

    test("the kubeconfig secret, with the context given, is its way in", () => {
        const s = settings({ values: { cluster: { context: "admin@cp" } }, secrets: { kubeconfig: KUBECONFIG } });
        assert.deepEqual(clusterRoute(s, "control-plane"), {
            kind: "stack-secret",
            key: "kubeconfig",
            context: "admin@cp",
            clusterIdentifier: "dev",
            skipAwait: false,
        });
    });

    test("without cluster.clusterIdentifier the identity is control-plane; skipAwait is carried", () => {
        const s = settings({ values: { cluster: { clusterIdentifier: undefined, skipAwait: true } } });
        assert.deepEqual(clusterRoute(s, "control-plane"), {
            kind: "default-kubeconfig",
            clusterIdentifier: "control-plane",
            skipAwait: true,
        });
    });

    test("an EKS cluster is reached by its name, region and AWS access; its identity is its region and name", () => {
        // The dev stack's own clusterIdentifier (dev) stays set: it does not name an EKS cluster.
        const route = clusterRoute(settings({ values: { cluster: { eks: EKS } } }), "control-plane");
        assert.deepEqual(route, { kind: "eks", eks: EKS, clusterIdentifier: "eks:us-west-2:nvcf-cp", skipAwait: false });
        assert.equal(eksClusterIdentifier(EKS), "eks:us-west-2:nvcf-cp");
    });

    test("a route is plain data: no Output, no secret's text", () => {
        const s = settings({ values: { cluster: { context: "admin@cp" } }, secrets: { kubeconfig: KUBECONFIG } });
        const route = clusterRoute(s, "control-plane");
        assert.deepEqual(JSON.parse(JSON.stringify(route)), route);
        assert.ok(!JSON.stringify(route).includes("apiVersion"));
    });
});

describe("a compute plane's cluster", () => {
    test("its entry in computePlaneKubeconfigs, with its context; its identity is its clusterName unless it names one", () => {
        const s = withPlanes(
            [
                { clusterName: "gpu-a", cluster: { context: "gpu-a-admin" } },
                { clusterName: "gpu-b", cluster: { clusterIdentifier: "gpu-b-v2", skipAwait: true } },
            ],
            {
                secrets: { computePlaneKubeconfigs: JSON.stringify({ "gpu-a": KUBECONFIG, "gpu-b": KUBECONFIG }) },
                computePlaneKubeconfigNames: ["gpu-a", "gpu-b"],
            },
        );
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "stack-secret",
            key: "computePlaneKubeconfigs",
            clusterName: "gpu-a",
            context: "gpu-a-admin",
            clusterIdentifier: "gpu-a",
            skipAwait: false,
        });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-b" }), {
            kind: "stack-secret",
            key: "computePlaneKubeconfigs",
            clusterName: "gpu-b",
            clusterIdentifier: "gpu-b-v2",
            skipAwait: true,
        });
    });

    test("a context with no entry of its own is a context of the default kubeconfig, never the control plane's kubeconfig secret", () => {
        const s = withPlanes([{ clusterName: "gpu-a", cluster: { context: "gpu-a-admin" } }], {
            secrets: { kubeconfig: KUBECONFIG, computePlaneKubeconfigs: JSON.stringify({ other: KUBECONFIG }) },
            computePlaneKubeconfigNames: ["other"],
        });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "default-kubeconfig",
            context: "gpu-a-admin",
            clusterIdentifier: "gpu-a",
            skipAwait: false,
        });
    });

    test("an EKS plane is reached by its own name and region, whatever the control plane's way; it may name its identity", () => {
        const eks = { name: "gpu-eks", region: "eu-west-1" };
        const s = withPlanes(
            [
                { clusterName: "gpu-a", cluster: { eks } },
                { clusterName: "gpu-b", cluster: { eks, clusterIdentifier: "gpu-b", skipAwait: true } },
            ],
            { secrets: { kubeconfig: KUBECONFIG } },
        );
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "eks",
            eks,
            clusterIdentifier: "eks:eu-west-1:gpu-eks",
            skipAwait: false,
        });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-b" }), { kind: "eks", eks, clusterIdentifier: "gpu-b", skipAwait: true });
    });

    test("on the control plane's cluster: the control plane's way in and identity, with the plane's own skipAwait", () => {
        const s = withPlanes([{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true } }], {
            values: { cluster: { context: "admin@cp", skipAwait: true } },
            secrets: { kubeconfig: KUBECONFIG },
        });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "stack-secret",
            key: "kubeconfig",
            context: "admin@cp",
            clusterIdentifier: "dev",
            skipAwait: false,
            sameAsControlPlane: true,
        });
    });

    test("on the control plane's cluster with no kubeconfig secret: the default kubeconfig at the control plane's context; its own identity if it names one", () => {
        const s = withPlanes([{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true, clusterIdentifier: "gpu-on-cp" } }], {
            values: { cluster: { context: "admin@cp" } },
        });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "default-kubeconfig",
            context: "admin@cp",
            clusterIdentifier: "gpu-on-cp",
            skipAwait: false,
            sameAsControlPlane: true,
        });
    });

    test("on the control plane's EKS cluster: that cluster by name, under its identity", () => {
        const s = withPlanes([{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true } }], { values: { cluster: { eks: EKS } } });
        assert.deepEqual(clusterRoute(s, { clusterName: "gpu-a" }), {
            kind: "eks",
            eks: EKS,
            clusterIdentifier: "eks:us-west-2:nvcf-cp",
            skipAwait: false,
            sameAsControlPlane: true,
        });
    });

    test("a name that is no compute plane of the stack is refused", () => {
        const s = withPlanes([{ clusterName: "gpu-a", cluster: { sameAsControlPlane: true } }]);
        assert.throws(() => clusterRoute(s, { clusterName: "gpu-x" }), /no compute plane gpu-x in the stack's settings/);
    });
});
