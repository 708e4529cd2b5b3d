import { test } from "node:test";
import { assertProblems, devRaw } from "../../support/raw-config";
import { EKS, P } from "../support";

test("an EKS cluster with a context or a kubeconfig secret", () => {
    const expected = [
        {
            key: `${P}:cluster.eks`,
            message: "an EKS cluster is reached through its name alone: set no context and no kubeconfig secret",
        },
    ];
    assertProblems(devRaw({ values: { cluster: { eks: EKS, context: "x" } } }), expected);
    assertProblems(devRaw({ values: { cluster: { eks: EKS } }, secrets: { kubeconfig: "apiVersion: v1" } }), expected);
});
