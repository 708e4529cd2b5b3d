import { describe, it } from "node:test";
import { noLatestImageTag } from "../rules/no-latest-image-tag";
import { privilegedOnlyInotifyTuner } from "../rules/privileged-only-inotify-tuner";
import {
    assertHasResourceViolation,
    assertNoResourceViolations,
    createResourceValidationArgs as args,
    UNKNOWN_FROM_ENGINE,
} from "./support/args";
import {
    ALL_FIXTURES,
    deployment,
    essRelease,
    inotifyTuner,
    openbaoRelease,
    otelCollectorRelease,
    REMOVE,
    withProp,
} from "./support/fixtures";

const POD = ["spec", "template", "spec"];
const TUNER_INIT = [...POD, "initContainers", 0];
const APP = [...POD, "containers", 0];

describe("privileged-only-inotify-tuner", () => {
    const policy = privilegedOnlyInotifyTuner;

    it("passes every compliant fixture, the tuner's hostPID and privileged init container included", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags a privileged container elsewhere", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(deployment(), [...APP, "securityContext", "privileged"], true)),
            "Deployment nvcf/example: container app is privileged",
        );
    });

    it("flags hostPID elsewhere", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(deployment(), [...POD, "hostPID"], true)),
            "Deployment nvcf/example sets hostPID",
        );
    });

    it("flags the tuner moved out of kube-system", async () => {
        const moved = withProp(withProp(inotifyTuner(), ["metadata", "namespace"], "default"), [...POD, "hostPID"], false);
        await assertHasResourceViolation(policy, args(moved), "DaemonSet default/node-inotify-tuner: container set-sysctl is privileged");
    });

    it("flags a renamed tuner", async () => {
        const renamed = withProp(withProp(inotifyTuner(), ["metadata", "name"], "node-tuning"), TUNER_INIT, {
            name: "set-sysctl",
            image: "busybox:1.36",
        });
        await assertHasResourceViolation(policy, args(renamed), "DaemonSet kube-system/node-tuning sets hostPID");
    });

    it("checks a bare Pod too", async () => {
        const pod = {
            ...deployment(),
            type: "kubernetes:core/v1:Pod",
            props: { metadata: { name: "debug", namespace: "nvcf" }, spec: { hostPID: true, containers: [] } },
        };
        await assertHasResourceViolation(policy, args(pod), "Pod nvcf/debug sets hostPID");
    });

    it("skips a workload whose name is unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(inotifyTuner(), ["metadata", "name"], UNKNOWN_FROM_ENGINE)));
    });
});

describe("no-latest-image-tag", () => {
    const policy = noLatestImageTag;

    it("passes every compliant fixture (digests and registry ports included)", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
        await assertNoResourceViolations(policy, args(withProp(deployment(), [...APP, "image"], "localhost:5000/nvcf/example@sha256:abc")));
        await assertNoResourceViolations(policy, args(withProp(deployment(), [...APP, "image"], "localhost:5000/nvcf/example:1.0")));
    });

    it("flags a container image without a tag", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(deployment(), [...APP, "image"], "localhost:5000/nvcf/example")),
            '"localhost:5000/nvcf/example" has no tag',
        );
    });

    it("flags the tuner's init container on latest", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(inotifyTuner(), [...TUNER_INIT, "image"], "busybox:latest")),
            "uses the latest tag",
        );
    });

    it("flags tag: latest in release values", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), ["values", "ess", "image", "tag"], "latest")),
            'ess-api": ess.image.tag is latest',
        );
    });

    it("flags tag: latest of an agentImage", async () => {
        const broken = withProp(openbaoRelease(), ["values", "openbao", "injector", "agentImage"], {
            repository: "nvidia/nvcf/nvcf-openbao",
            tag: "latest",
        });
        await assertHasResourceViolation(policy, args(broken), "openbao.injector.agentImage.tag is latest");
    });

    it("flags a full image reference in values without a tag", async () => {
        const broken = withProp(otelCollectorRelease(), ["values", "image"], "ghcr.io/open-telemetry/opentelemetry-collector-contrib");
        await assertHasResourceViolation(policy, args(broken), 'image "ghcr.io/open-telemetry/opentelemetry-collector-contrib" has no tag');
    });

    it("leaves an image map without a tag to the chart's pinned appVersion", async () => {
        await assertNoResourceViolations(policy, args(withProp(essRelease(), ["values", "ess", "image", "tag"], REMOVE)));
    });

    it("skips an image unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(deployment(), [...APP, "image"], UNKNOWN_FROM_ENGINE)));
    });
});
