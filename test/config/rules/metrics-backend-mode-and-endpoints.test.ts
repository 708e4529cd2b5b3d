import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("an installed metrics backend takes no authentication; token authentication needs its endpoint", () => {
    assertProblems(devRaw({ controlPlane: { metricsBackend: { authentication: { mode: "token" } } } }), [
        {
            key: `${CP}.metricsBackend.authentication.mode`,
            message: "must be none when metricsBackend.mode=install",
            given: "token",
            allowed: "none",
        },
        { key: `${CP}.metricsBackend.authentication.authnEndpoint`, message: "is required for token authentication", given: "" },
    ]);
});

test("an existing metrics backend needs its remote-write URL, and its PromQL URL for the autoscaler", () => {
    assertProblems(devRaw({ controlPlane: { metricsBackend: { mode: "existing", type: "external" } } }), [
        {
            key: `${CP}.metricsBackend.remoteWriteEndpoint`,
            message: "is required when metricsBackend.mode=existing",
            given: "",
            allowed: "the remote-write URL of your metrics backend",
        },
        {
            key: `${CP}.metricsBackend.promqlEndpoint`,
            message: "is required for control and all profiles",
            given: "",
            allowed: "the PromQL URL of your metrics backend",
        },
    ]);
    assertProblems(
        devRaw({ controlPlane: { metricsBackend: { mode: "existing", type: "external" }, observability: { profile: "compute" } } }),
        [{ key: `${CP}.metricsBackend.remoteWriteEndpoint`, message: "is required when metricsBackend.mode=existing" }],
    );
    parse(devRaw({ controlPlane: { metricsBackend: { mode: "existing" }, observability: { profile: "disabled" } } }));
});

test("the backend's type follows its mode, as the observability bundle requires", () => {
    const existing = { mode: "existing", remoteWriteEndpoint: "http://vm/api/v1/write", promqlEndpoint: "http://vm" };
    assertProblems(devRaw({ controlPlane: { metricsBackend: existing } }), [
        {
            key: `${CP}.metricsBackend.type`,
            message: 'metricsBackend.type must be external when metricsBackend.mode=existing, got "victoriaMetrics"',
            given: "victoriaMetrics",
            allowed: "external",
        },
    ]);
    assertProblems(devRaw({ controlPlane: { metricsBackend: { type: "external" } } }), [
        {
            key: `${CP}.metricsBackend.type`,
            message: 'metricsBackend.type must be victoriaMetrics when metricsBackend.mode=install, got "external"',
            given: "external",
            allowed: "victoriaMetrics, or metricsBackend.mode: existing",
        },
    ]);
    parse(devRaw({ controlPlane: { metricsBackend: { ...existing, type: "external" } } }));
});

test("mtls authentication needs both the client certificate and key paths", () => {
    const existing = { mode: "existing", type: "external", remoteWriteEndpoint: "http://vm/api/v1/write", promqlEndpoint: "http://vm" };
    assertProblems(
        devRaw({
            controlPlane: { metricsBackend: { ...existing, authentication: { mode: "mtls", clientCertificatePath: "/tls/crt" } } },
        }),
        [
            {
                key: `${CP}.metricsBackend.authentication.clientCertificatePath`,
                message: "clientCertificatePath and clientPrivateKeyPath are required for mtls authentication",
                given: undefined,
            },
        ],
    );
});
