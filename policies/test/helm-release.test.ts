import { describe, it } from "node:test";
import { helmReleaseNoCreateNamespace } from "../rules/helm-release-no-create-namespace";
import { helmReleasePinnedAndNamed } from "../rules/helm-release-pinned-and-named";
import { helmReleaseTimeout } from "../rules/helm-release-timeout";
import {
    assertHasResourceViolation,
    assertNoResourceViolations,
    createResourceValidationArgs as args,
    UNKNOWN_FROM_ENGINE,
} from "./support/args";
import { ALL_FIXTURES, essRelease, kaiRelease, namespace, nvcaOperatorRelease, REMOVE, smbRelease, withProp } from "./support/fixtures";

describe("helm-release-pinned-and-named", () => {
    const policy = helmReleasePinnedAndNamed;

    it("passes every compliant fixture (v-prefixed and pre-release versions included)", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
        await assertNoResourceViolations(policy, args(withProp(kaiRelease(), ["version"], "v0.1.0-alpha.11")));
    });

    it("flags a release without a version", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), ["version"], REMOVE)),
            'Helm release "ess-api" pins no chart version',
        );
    });

    it("flags a version range", async () => {
        await assertHasResourceViolation(policy, args(withProp(essRelease(), ["version"], "^1.7.0")), '"^1.7.0" is not an exact version');
    });

    it("flags a release without an explicit name", async () => {
        await assertHasResourceViolation(policy, args(withProp(essRelease(), ["name"], REMOVE)), "has no explicit release name");
    });

    it("skips a version unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(essRelease(), ["version"], UNKNOWN_FROM_ENGINE)));
    });

    it("ignores other resource kinds", async () => {
        await assertNoResourceViolations(policy, args(withProp(namespace("nvcf"), ["version"], "^1")));
    });
});

describe("helm-release-no-create-namespace", () => {
    const policy = helmReleaseNoCreateNamespace;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags createNamespace: true", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), ["createNamespace"], true)),
            'Helm release "ess-api" sets createNamespace',
        );
    });
});

describe("helm-release-timeout", () => {
    const policy = helmReleaseTimeout;

    it("passes every compliant fixture (nvca-operator at 900, the SMB CSI driver at 300)", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
        await assertNoResourceViolations(policy, args(withProp(nvcaOperatorRelease(), ["timeout"], 601)));
    });

    it("flags a bundle release below 900 s", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), ["timeout"], 600)),
            "timeout is 600 s; it must be at least the bundle's 900 s",
        );
    });

    it("flags a release without a timeout (the provider's 300 s default)", async () => {
        await assertHasResourceViolation(policy, args(withProp(essRelease(), ["timeout"], REMOVE)), "timeout is 300 s");
    });

    it("flags nvca-operator at 600 s", async () => {
        await assertHasResourceViolation(policy, args(withProp(nvcaOperatorRelease(), ["timeout"], 600)), /nvca-operator.*above 600 s/);
    });

    it("flags the SMB CSI driver below the runbook's 5 minutes", async () => {
        await assertHasResourceViolation(policy, args(withProp(smbRelease(), ["timeout"], 120)), /csi-driver-smb.*at least 300 s/);
    });

    it("skips a timeout unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(essRelease(), ["timeout"], UNKNOWN_FROM_ENGINE)));
    });
});
