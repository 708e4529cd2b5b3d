import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { EKS, P, plane } from "../support";

test("an EKS compute plane with another way to reach it", () => {
    const message = "an EKS cluster is reached through its name alone: no sameAsControlPlane, context or kubeconfig";
    const key = `${P}:computePlanes[0].cluster.eks`;
    assertProblems(devRaw({ values: { computePlanes: [plane({ cluster: { sameAsControlPlane: true, eks: EKS } })] } }), [{ key, message }]);
    assertProblems(devRaw({ values: { computePlanes: [plane({ cluster: { context: "x", eks: EKS } })] } }), [{ key, message }]);
    assertProblems(devRaw({ values: { computePlanes: [plane({ cluster: { eks: EKS } })] }, computePlaneKubeconfigNames: ["gpu"] }), [
        { key, message },
    ]);
});

test("a compute plane on the control plane's cluster with a context or kubeconfig of its own", () => {
    const expected = [
        {
            key: `${P}:computePlanes[0].cluster.sameAsControlPlane`,
            message: "a compute plane on the control plane's cluster takes no context or kubeconfig of its own",
            given: true,
        },
    ];
    assertProblems(devRaw({ values: { computePlanes: [plane({ cluster: { sameAsControlPlane: true, context: "x" } })] } }), expected);
    assertProblems(devRaw({ values: { computePlanes: [plane()] }, computePlaneKubeconfigNames: ["gpu"] }), expected);
});

test("no way to reach the cluster (never the ambient context)", () => {
    const planes = [{ clusterName: "gpu-x" }];
    assertProblems(devRaw({ values: { computePlanes: planes } }), [
        {
            key: `${P}:computePlanes[0].cluster`,
            message: "says nothing about how to reach the GPU cluster gpu-x",
            allowed: "sameAsControlPlane: true, a context, eks: {name, region}, or a kubeconfig under computePlaneKubeconfigs.gpu-x",
        },
    ]);
    parse(devRaw({ values: { computePlanes: planes }, computePlaneKubeconfigNames: ["gpu-x"] }));
});
