import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { adminIssuerGrantRevoked } from "../rules/admin-issuer-grant-revoked";
import { certManagerOnlyWhenEnabled } from "../rules/cert-manager-only-when-enabled";
import { kaiFeatureGateNeedsKaiScheduler } from "../rules/kai-feature-gate-needs-kai-scheduler";
import { nvcaOperatorPrerequisites } from "../rules/nvca-operator-prerequisites";
import {
    assertHasStackViolation,
    assertNoStackViolations,
    createStackValidationArgs as stack,
    fixtureUrn,
    UNKNOWN_FROM_ENGINE,
    type FixtureResource,
} from "./support/args";
import {
    adminIssuerProxyRelease,
    certManagerRelease,
    changeStack,
    compliantStack,
    CONTROL_CLUSTER,
    dynamoRelease,
    grantRevocation,
    inotifyTuner,
    kaiRelease,
    namespace,
    nvcaOperatorRelease,
    openbaoRelease,
    registration,
    smbRelease,
    withProp,
} from "./support/fixtures";

const operatorUrn = fixtureUrn(nvcaOperatorRelease());
const without = (name: string) => changeStack(compliantStack(), name, () => undefined);
const withDependencies = (dependencies: readonly string[]) =>
    changeStack(compliantStack(), nvcaOperatorRelease().name, (r): FixtureResource => ({ ...r, dependencies }));

describe("admin-issuer-grant-revoked", () => {
    const policy = adminIssuerGrantRevoked;

    it("passes the compliant stack (the proxy is installed)", async () => {
        await assertNoStackViolations(policy, stack(compliantStack()));
    });

    it("flags a stack without the proxy and without a revocation", async () => {
        await assertHasStackViolation(
            policy,
            stack(without(adminIssuerProxyRelease().name)),
            "no OpenBao grant revocation",
            fixtureUrn(openbaoRelease()),
        );
    });

    it("passes a stack without the proxy that revokes the grant", async () => {
        await assertNoStackViolations(policy, stack([...without(adminIssuerProxyRelease().name), grantRevocation()]));
    });

    it("does not apply to a stack without OpenBao", async () => {
        const noOpenbao = changeStack(without(adminIssuerProxyRelease().name), openbaoRelease().name, () => undefined);
        await assertNoStackViolations(policy, stack(noOpenbao));
    });
});

describe("nvca-operator-prerequisites", () => {
    const policy = nvcaOperatorPrerequisites;
    const [registrationUrn, smbUrn, tunerUrn] = [registration(), smbRelease(), inotifyTuner()].map(fixtureUrn);

    it("passes the compliant stack", async () => {
        await assertNoStackViolations(policy, stack(compliantStack()));
    });

    it("accepts prerequisites reached through another dependency", async () => {
        const chained = changeStack(withDependencies([smbUrn]), smbRelease().name, (r) => ({
            ...r,
            dependencies: [registrationUrn, tunerUrn],
        }));
        await assertNoStackViolations(policy, stack(chained));
    });

    it("flags a missing dependency on the cluster registration", async () => {
        await assertHasStackViolation(
            policy,
            stack(withDependencies([smbUrn, tunerUrn])),
            "does not depend on a cluster registration",
            operatorUrn,
        );
    });

    it("flags a missing dependency on the SMB CSI driver", async () => {
        await assertHasStackViolation(
            policy,
            stack(withDependencies([registrationUrn, tunerUrn])),
            "does not depend on the SMB CSI driver",
            operatorUrn,
        );
    });

    it("flags a missing dependency on the inotify tuner", async () => {
        await assertHasStackViolation(
            policy,
            stack(withDependencies([registrationUrn, smbUrn])),
            "does not depend on the inotify tuner",
            operatorUrn,
        );
    });

    it("flags an SMB CSI driver of another cluster", async () => {
        const elsewhere = changeStack(compliantStack(), smbRelease().name, (r) => ({ ...r, provider: CONTROL_CLUSTER }));
        await assertHasStackViolation(policy, stack(elsewhere), "does not depend on the SMB CSI driver", operatorUrn);
    });

    it("flags a registration of another compute plane", async () => {
        const other: FixtureResource = { type: "nvcf:compute-plane:ComputePlane", name: "gpu-b", props: {} };
        const elsewhere = changeStack(compliantStack(), registration().name, (r) => ({ ...r, parent: fixtureUrn(other) }));
        await assertHasStackViolation(policy, stack([other, ...elsewhere]), "does not depend on a cluster registration", operatorUrn);
    });

    it("flags a tuner outside kube-system", async () => {
        const moved = changeStack(compliantStack(), inotifyTuner().name, (r) => withProp(r, ["metadata", "namespace"], "nvca-operator"));
        await assertHasStackViolation(policy, stack(moved), "does not depend on the inotify tuner", operatorUrn);
    });

    it("does not crash when a tuner's name is unknown during preview (it then does not count)", async () => {
        const unknown = changeStack(compliantStack(), inotifyTuner().name, (r) => withProp(r, ["metadata"], UNKNOWN_FROM_ENGINE));
        await assertHasStackViolation(policy, stack(unknown), "does not depend on the inotify tuner", operatorUrn);
    });
});

describe("kai-feature-gate-needs-kai-scheduler", () => {
    const policy = kaiFeatureGateNeedsKaiScheduler;

    it("passes the compliant stack (KAIScheduler on, KAI installed)", async () => {
        await assertNoStackViolations(policy, stack(compliantStack()));
    });

    it("flags the gate without a kai-scheduler release", async () => {
        await assertHasStackViolation(
            policy,
            stack(without(kaiRelease().name)),
            "enables KAIScheduler, but cluster gpu-a has no kai-scheduler",
            operatorUrn,
        );
    });

    it("accepts a KAI scheduler installed outside the stack when the config lists the cluster", async () => {
        await assertNoStackViolations(policy, stack(without(kaiRelease().name), { externalKaiSchedulerClusters: ["gpu-a"] }));
        await assertHasStackViolation(
            policy,
            stack(without(kaiRelease().name), { externalKaiSchedulerClusters: ["gpu-b"] }),
            "cluster gpu-a",
        );
    });

    it("flags the gate when KAI is on another cluster", async () => {
        const elsewhere = changeStack(compliantStack(), kaiRelease().name, (r) => ({ ...r, provider: CONTROL_CLUSTER }));
        await assertHasStackViolation(policy, stack(elsewhere), "enables KAIScheduler", operatorUrn);
    });

    it("passes the gate off without KAI", async () => {
        const off = changeStack(without(kaiRelease().name), nvcaOperatorRelease().name, (r) =>
            withProp(r, ["values", "selfManaged", "featureGateValues"], ["BYOObservability"]),
        );
        await assertNoStackViolations(policy, stack(off));
    });

    it("skips feature gates unknown during preview", async () => {
        const unknown = changeStack(without(kaiRelease().name), nvcaOperatorRelease().name, (r) =>
            withProp(r, ["values"], UNKNOWN_FROM_ENGINE),
        );
        await assertNoStackViolations(policy, stack(unknown));
    });

    describe("the DynamoOperatorSupport gate", () => {
        const withDynamoGate = (resources: FixtureResource[]) =>
            changeStack(resources, nvcaOperatorRelease().name, (r) =>
                withProp(r, ["values", "selfManaged", "featureGateValues"], ["KAIScheduler", "DynamoOperatorSupport"]),
            );

        it("passes with a dynamo-operator release on the same cluster", async () => {
            await assertNoStackViolations(policy, stack(withDynamoGate([...compliantStack(), dynamoRelease()])));
        });

        it("flags the gate without a dynamo-operator release, unless the config lists the cluster", async () => {
            await assertHasStackViolation(
                policy,
                stack(withDynamoGate(compliantStack())),
                "enables DynamoOperatorSupport, but cluster gpu-a has no dynamo-operator",
                operatorUrn,
            );
            await assertNoStackViolations(policy, stack(withDynamoGate(compliantStack()), { externalDynamoOperatorClusters: ["gpu-a"] }));
        });

        it("flags the gate when Dynamo is on another cluster", async () => {
            const elsewhere = changeStack([...compliantStack(), dynamoRelease()], dynamoRelease().name, (r) => ({
                ...r,
                provider: CONTROL_CLUSTER,
            }));
            await assertHasStackViolation(policy, stack(withDynamoGate(elsewhere)), "enables DynamoOperatorSupport", operatorUrn);
        });
    });
});

describe("cert-manager-only-when-enabled", () => {
    const policy = certManagerOnlyWhenEnabled;
    const certManagerUrn = fixtureUrn(certManagerRelease());

    it("is advisory", () => {
        assert.equal(policy.enforcementLevel, "advisory");
    });

    it("passes the compliant stack (the stack owns the cert-manager namespace)", async () => {
        await assertNoStackViolations(policy, stack(compliantStack()));
    });

    it("flags a cert-manager release without the stack's own namespace (an external cert-manager)", async () => {
        await assertHasStackViolation(
            policy,
            stack(without(namespace("cert-manager").name)),
            "certManager.enabled is false",
            certManagerUrn,
        );
    });

    it("follows certManagerEnabled from the policy config over the namespace", async () => {
        await assertHasStackViolation(policy, stack(compliantStack(), { certManagerEnabled: false }), "certManager.enabled is false");
        await assertNoStackViolations(policy, stack(without(namespace("cert-manager").name), { certManagerEnabled: true }));
    });

    it("passes an external cert-manager the stack does not install", async () => {
        await assertNoStackViolations(policy, stack(without(certManagerRelease().name), { certManagerEnabled: false }));
    });
});
