import { describe, it } from "node:test";
import { podAnnotationValuesAreStrings } from "../rules/pod-annotation-values-are-strings";
import { podAnnotationsNoChartManagedKeys } from "../rules/pod-annotations-no-chart-managed-keys";
import { podAnnotationsReservedPrefix } from "../rules/pod-annotations-reserved-prefix";
import {
    assertHasResourceViolation,
    assertNoResourceViolations,
    createResourceValidationArgs as args,
    UNKNOWN_FROM_ENGINE,
} from "./support/args";
import {
    ALL_FIXTURES,
    apiRelease,
    CHECKSUM_KEY,
    essRelease,
    natsAuthCalloutRelease,
    natsRelease,
    openbaoRelease,
    withProp,
} from "./support/fixtures";

const annotation = (chartKey: string, key: string) => ["values", chartKey, "podAnnotations", key];

describe("pod-annotation-values-are-strings", () => {
    const policy = podAnnotationValuesAreStrings;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags a number", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), annotation("ess", "example.com/port"), 8080)),
            'ess.podAnnotations["example.com/port"] is not a string',
        );
    });

    it("flags a boolean in OpenBao's server annotations", async () => {
        const broken = withProp(openbaoRelease(), ["values", "openbao", "server", "annotations", "example.com/scrape"], true);
        await assertHasResourceViolation(policy, args(broken), 'openbao.server.annotations["example.com/scrape"]');
    });

    it("skips a value unknown during preview", async () => {
        await assertNoResourceViolations(policy, args(withProp(essRelease(), annotation("ess", "example.com/team"), UNKNOWN_FROM_ENGINE)));
    });
});

describe("pod-annotations-no-chart-managed-keys", () => {
    const policy = podAnnotationsNoChartManagedKeys;

    it("passes every compliant fixture", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags checksum/config", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(apiRelease(), annotation("api", "checksum/config"), "x")),
            'api.podAnnotations["checksum/config"] is managed by the chart',
        );
    });

    it("flags vault.hashicorp.com keys", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(essRelease(), annotation("ess", "vault.hashicorp.com/role"), "x")),
            "vault.hashicorp.com/role",
        );
    });
});

describe("pod-annotations-reserved-prefix", () => {
    const policy = podAnnotationsReservedPrefix;

    it("passes every compliant fixture, the program's checksum on the auth callout included", async () => {
        for (const fixture of ALL_FIXTURES) await assertNoResourceViolations(policy, args(fixture()));
    });

    it("flags another key with the prefix on the auth callout", async () => {
        const broken = withProp(natsAuthCalloutRelease(), ["values", "podAnnotations", "nvcf.nvidia.com/nats-worker-auth-mode"], "token");
        await assertHasResourceViolation(
            policy,
            args(broken),
            'podAnnotations["nvcf.nvidia.com/nats-worker-auth-mode"] uses the reserved prefix',
        );
    });

    it("flags the checksum key on any other release", async () => {
        await assertHasResourceViolation(
            policy,
            args(withProp(natsRelease(), annotation("nats", CHECKSUM_KEY), "x")),
            `nats.podAnnotations["${CHECKSUM_KEY}"]`,
        );
    });

    it("flags the checksum key elsewhere in the auth callout's values", async () => {
        // Under the chart's key, which this chart does not read, the key is not the program's.
        const broken = withProp(natsAuthCalloutRelease(), annotation("natsAuthCalloutService", CHECKSUM_KEY), "x");
        await assertHasResourceViolation(
            policy,
            args(broken),
            `natsAuthCalloutService.podAnnotations["${CHECKSUM_KEY}"] uses the reserved prefix`,
        );
    });
});
