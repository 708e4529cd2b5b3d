import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { RELEASE_NAMES } from "../components/catalog/control-plane";
import { RESERVED_PULL_SECRET_NAMES } from "../config/compute-plane-schema";
import { environmentSchema } from "../config/schema";
import { assertProblems, configError, devRaw, parse } from "./support/raw-config";

// parseSettings on raw config built in the test: no Pulumi program runs. Each test asserts the
// exact key path and message of every problem, in order, all from one ConfigError.

const P = "nvcf-self-managed";
const CP = `${P}:controlPlane`;
const EKS = { name: "nvcf-cp", region: "us-west-2" };
const ECR = "123456789012.dkr.ecr.us-west-2.amazonaws.com";
const plane = (extra: Record<string, unknown> = {}) => ({ clusterName: "gpu", cluster: { sameAsControlPlane: true }, ...extra });

describe("parseSettings on a good config", () => {
    test("the dev stack parses into frozen Settings: the keys in order, the secrets as given", () => {
        const raw = devRaw({ computePlaneKubeconfigNames: ["gpu-b"] });
        const settings = parse(raw);
        assert.deepEqual(Object.keys(settings), [
            "controlPlane",
            "releases",
            "cluster",
            "registry",
            "computePlanes",
            "openbaoAccess",
            "openbaoRollout",
            "credentialRotation",
            "dns",
            "checks",
            "bundle",
            "computePlaneKubeconfigNames",
            "secrets",
        ]);
        assert.equal(settings.controlPlane.global.domain, "nvcf.test");
        assert.equal(settings.cluster.clusterIdentifier, "dev");
        assert.deepEqual(settings.releases, {});
        assert.deepEqual(settings.computePlanes, []);
        assert.deepEqual(settings.computePlaneKubeconfigNames, ["gpu-b"]);
        assert.equal(settings.secrets.ngcApiKey, raw.secrets.ngcApiKey);
        assert.ok(pulumi.Output.isInstance(settings.secrets.ngcApiKey));
        assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.controlPlane.global.image));
    });

    test("the same raw config gives the same settings (parseSettings reads nothing else)", () => {
        const raw = devRaw({ controlPlane: { nats: { workerAuth: "token" } } });
        const { secrets: first, ...a } = parse(raw);
        const { secrets: second, ...b } = parse(raw);
        assert.deepEqual(a, b);
        assert.equal(first.ngcApiKey, second.ngcApiKey);
    });
});

describe("each key by its schema: every problem of the parse at once", () => {
    test("an unknown project setting", () => {
        const allowed = [
            "controlPlane",
            "releases",
            "cluster",
            "registry",
            "computePlanes",
            "openbaoAccess",
            "openbaoRollout",
            "credentialRotation",
            "dns",
            "checks",
            "bundle",
            "ngcApiKey",
            "accountRegistryKey",
            "sidecarRegistryKey",
            "chartRegistryPassword",
            "cassandraPassword",
            "kubeconfig",
            "computePlaneKubeconfigs",
            "nvcfAdminToken",
            "openbaoToken",
        ]
            .map((k) => `${P}:${k}`)
            .join(", ");
        assertProblems(devRaw({ unknownKeys: ["controlPlan", "zzz"] }), [
            { key: `${P}:controlPlan`, message: 'unknown setting (did you mean "controlPlane"?)', allowed },
            { key: `${P}:zzz`, message: "unknown setting (a typo?)", allowed },
        ]);
    });

    test("a secret stored in plain text: the key is named, the value never", () => {
        const error = assertProblems(devRaw({ plaintextSecretKeys: ["nvcfAdminToken"], secrets: { nvcfAdminToken: "plain-token" } }), [
            {
                key: `${P}:nvcfAdminToken`,
                message: "is stored in plain text in the stack file: set it again with `pulumi config set --secret nvcfAdminToken`",
                given: undefined,
            },
        ]);
        assert.doesNotMatch(error.message, /plain-token/);
    });

    test("controlPlane unset", () => {
        assertProblems(devRaw({ values: { controlPlane: undefined } }), [
            { key: CP, message: "is not set, and it is required", allowed: "a value of type object" },
        ]);
    });

    test("an unknown nats.workerAuth, with the bundle's own message", () => {
        assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "jwt" } } }), [
            { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token", given: "jwt", allowed: "nkey, token" },
        ]);
    });

    test("a pod annotation value that is not a string", () => {
        assertProblems(devRaw({ controlPlane: { api: { podAnnotations: { "example.com/port": 8080 } } } }), [
            {
                key: `${CP}.api.podAnnotations["example.com/port"]`,
                message:
                    "annotation values must be strings (quote numbers and booleans; with `pulumi config set --path`, add `--type string`)",
                given: 8080,
                allowed: 'a string, such as "8080" or "true"',
            },
        ]);
    });

    test("a chart-managed annotation key such as checksum/config", () => {
        assertProblems(devRaw({ controlPlane: { ess: { podAnnotations: { "checksum/config": "x" } } } }), [
            {
                key: `${CP}.ess.podAnnotations["checksum/config"]`,
                message: "the key checksum/config is managed by the chart itself",
                given: "checksum/config",
                allowed: "a key not starting with checksum/ or vault.hashicorp.com/",
            },
        ]);
    });

    test("an annotation key with the reserved nvcf.nvidia.com/nats-worker-auth prefix", () => {
        const key = "nvcf.nvidia.com/nats-worker-auth-mode";
        assertProblems(devRaw({ controlPlane: { natsAuthCalloutService: { podAnnotations: { [key]: "x" } } } }), [
            {
                key: `${CP}.natsAuthCalloutService.podAnnotations["${key}"]`,
                message: "keys starting with nvcf.nvidia.com/nats-worker-auth are reserved for the auth callout's restart",
                given: key,
                allowed: "a key not starting with nvcf.nvidia.com/nats-worker-auth",
            },
        ]);
    });

    test("a domain that is not a DNS name", () => {
        assertProblems(devRaw({ controlPlane: { global: { domain: "NVCF test!" } } }), [
            { key: `${CP}.global.domain`, message: "global.domain must be a DNS name", given: "NVCF test!", allowed: undefined },
        ]);
    });

    test("a storage size that is not a Kubernetes quantity", () => {
        assertProblems(devRaw({ controlPlane: { global: { storageSize: "10 GB" } } }), [
            { key: `${CP}.global.storageSize`, message: "must be a Kubernetes quantity such as 10Gi", given: "10 GB" },
        ]);
    });

    test("an unknown top-level key (a typo Helmfile would ignore)", () => {
        assertProblems(devRaw({ controlPlane: { natz: { workerAuth: "token" } } }), [
            {
                key: `${CP}.natz`,
                message: 'unknown key (did you mean "nats"?)',
                // A value under an unknown key is never echoed: a misspelled secret key would print the secret.
                given: undefined,
                allowed: Object.keys(environmentSchema.shape).join(", "),
            },
        ]);
    });

    test("a typo does not hide the rules that span keys: both come in one pass", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    global: { domian: "x.test" },
                    nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: "" } } },
                },
            }),
            [
                { key: `${CP}.global.domian`, message: 'unknown key (did you mean "domain"?)', given: undefined },
                { key: `${CP}.nats.authCallout.workerTokenAuth.webhookUrl`, message: "must not be empty when nats.workerAuth is token" },
            ],
        );
    });

    test("an unknown nested key", () => {
        assertProblems(devRaw({ controlPlane: { global: { imagePullSecret: [] } } }), [
            {
                key: `${CP}.global.imagePullSecret`,
                message: 'unknown key (did you mean "imagePullSecrets"?)',
                given: undefined,
                allowed:
                    "domain, helm, imagePullSecrets, image, workerEndpoints, nodeSelectors, tolerations, storageClass, storageSize, observability",
            },
        ]);
    });

    test("an account limit of 0, which the bundle would silently turn into its default", () => {
        assertProblems(devRaw({ controlPlane: { accounts: { limits: { maxFunctions: 0 } } } }), [
            {
                key: `${CP}.accounts.limits.maxFunctions`,
                message: "accounts.limits.maxFunctions must be greater than 0 and less than or equal to 50",
                given: 0,
                allowed: ">= 1",
            },
        ]);
    });

    test("the observability profile, with the bundle's message", () => {
        assertProblems(devRaw({ controlPlane: { observability: { profile: "full" } } }), [
            {
                key: `${CP}.observability.profile`,
                message: "observability.profile must be disabled, control, compute, or all",
                given: "full",
                allowed: "disabled, control, compute, all",
            },
        ]);
    });

    test("a release version that is not a semantic version", () => {
        assertProblems(devRaw({ values: { releases: { api: { version: "latest" } } } }), [
            { key: `${P}:releases.api.version`, message: "version must be a semantic version", given: "latest" },
        ]);
    });

    test("compute-plane names: over 32 characters (ICMS answers 412), not RFC 1123, used twice", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ clusterName: "a".repeat(33) })] } }), [
            { key: `${P}:computePlanes[0].clusterName`, message: "ICMS refuses cluster names longer than 32 characters" },
        ]);
        assertProblems(devRaw({ values: { computePlanes: [plane({ clusterName: "GPU_A" })] } }), [
            {
                key: `${P}:computePlanes[0].clusterName`,
                message: "must be an RFC 1123 name: lower-case letters, digits, '-' and '.'",
                given: "GPU_A",
            },
        ]);
        assertProblems(devRaw({ values: { computePlanes: [plane(), plane({ cluster: { context: "x" } })] } }), [
            {
                key: `${P}:computePlanes[1].clusterName`,
                message: "the cluster name is already used by computePlanes[0]",
                given: "gpu",
                allowed: "a name unique among the compute planes",
            },
        ]);
    });

    test("a compute plane's pull secret with a name the NVCA mirror reserves", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ imagePullSecrets: [{ name: "ngc-api-key" }] })] } }), [
            {
                key: `${P}:computePlanes[0].imagePullSecrets`,
                message: "the NVCA mirror reserves this pull secret name",
                given: "ngc-api-key",
                allowed: `a name other than ${RESERVED_PULL_SECRET_NAMES.join(", ")}`,
            },
        ]);
    });

    test("a compute plane's unknown key, region and SMB chart source", () => {
        assertProblems(
            devRaw({ values: { computePlanes: [plane({ regoin: "x", region: "us west", smbCsiDriver: { source: "ftp://x" } })] } }),
            [
                { key: `${P}:computePlanes[0].region`, message: "must be a region name such as us-west-1", given: "us west" },
                {
                    key: `${P}:computePlanes[0].smbCsiDriver.source`,
                    message: "must be an https URL, an oci:// reference or a path",
                    given: "ftp://x",
                },
                { key: `${P}:computePlanes[0].regoin`, message: 'unknown key (did you mean "region"?)', given: undefined },
            ],
        );
    });

    test("malformed AWS settings: role ARN, region, EKS cluster name, hosted zone ID", () => {
        assertProblems(
            devRaw({
                values: {
                    cluster: { eks: { ...EKS, name: "-x", region: "uswest2", roleArn: "arn:aws:iam::123:role/x" } },
                    dns: { route53: { zoneId: "example.com", region: "us-west-2" } },
                },
            }),
            [
                { key: `${P}:cluster.eks.name`, message: "must be an EKS cluster name", given: "-x" },
                { key: `${P}:cluster.eks.region`, message: "must be an AWS region such as us-west-2", given: "uswest2" },
                { key: `${P}:cluster.eks.roleArn`, message: "must be an IAM role ARN such as arn:aws:iam::123456789012:role/deployer" },
                {
                    key: `${P}:dns.route53.zoneId`,
                    message: "must be a Route 53 hosted zone ID such as Z0123456789ABCDEFGHIJ",
                    given: "example.com",
                },
            ],
        );
    });

    test("every problem of the parse comes at once: unknown keys, plain-text secrets, then each key in order", () => {
        const error = assertProblems(
            devRaw({
                unknownKeys: ["controlPlan"],
                plaintextSecretKeys: ["openbaoToken"],
                controlPlane: { nats: { workerAuth: "jwt" }, global: { domain: "bad domain" } },
                values: { releases: { api: { version: "latest" } }, computePlanes: [plane({ clusterName: "GPU" })] },
            }),
            [
                { key: `${P}:controlPlan`, message: 'unknown setting (did you mean "controlPlane"?)' },
                {
                    key: `${P}:openbaoToken`,
                    message: "is stored in plain text in the stack file: set it again with `pulumi config set --secret openbaoToken`",
                },
                { key: `${CP}.global.domain`, message: "global.domain must be a DNS name" },
                { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token" },
                { key: `${P}:releases.api.version`, message: "version must be a semantic version" },
                { key: `${P}:computePlanes[0].clusterName`, message: "must be an RFC 1123 name: lower-case letters, digits, '-' and '.'" },
            ],
        );
        assert.equal(error.message.split("\n").filter((l) => l.startsWith("  - ")).length, 6);
    });

    test("cross-key rules wait until every key parses", () => {
        assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "jwt" }, stateMetrics: { enabled: false } } }), [
            { key: `${CP}.nats.workerAuth`, message: "nats.workerAuth must be nkey or token" },
        ]);
    });
});

describe("cross-key rules of the control plane", () => {
    test("the bundle's placeholder image repository", () => {
        assertProblems(devRaw({ controlPlane: { global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } } } }), [
            {
                key: `${CP}.global.image.repository`,
                message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
                given: "YOUR_ORG/YOUR_TEAM",
                allowed: "e.g. my-org/my-team",
            },
        ]);
    });

    test("the bundle's placeholder chart repository, unless a chart URL or path replaces it", () => {
        assertProblems(devRaw({ controlPlane: { global: { helm: { sources: { repository: "YOUR_ORG/YOUR_TEAM" } } } } }), [
            {
                key: `${CP}.global.helm.sources.repository`,
                message: "still the bundle's placeholder; set the org/team (or mirror path) that holds the NVCF charts",
                given: "YOUR_ORG/YOUR_TEAM",
                allowed: "e.g. my-org/my-team, or set global.helm.sources.url or .path instead",
            },
        ]);
        parse(devRaw({ controlPlane: { global: { helm: { sources: { repository: "YOUR_ORG/YOUR_TEAM", path: "/charts" } } } } }));
    });

    test("a domain valid alone that makes a hostname longer than DNS allows; the longest domain that does not", () => {
        // Four labels of 60 and one of 4: 248 characters, a valid DNS name; `*.invocation.` makes it 261.
        const label = "a".repeat(60);
        const domain = `${label}.${label}.${label}.${label}.test`;
        assert.equal(domain.length, 248);
        const { problems } = configError(devRaw({ controlPlane: { global: { domain } } }));
        assert.deepEqual(
            problems.map((p) => p.key),
            [`${CP}.global.domain`],
        );
        assert.match(problems[0].message, /^makes hostnames DNS does not allow: /);
        assert.match(problems[0].message, /invocationWildcard \*\.invocation\.a+\.\.\. \(261 characters\)/);
        const named = [...problems[0].message.matchAll(/(\w+) \S+\.\.\. \((\d+) characters\)/g)].map((m) => m[1]);
        // Over 253: tasks. (254), reval. (254), api-keys. (257), invocation. (259), *.invocation. (261); api., sis., llm. (252) and nats. (253) fit.
        for (const name of ["tasks", "reval", "apiKeys", "invocation", "invocationWildcard"]) assert.ok(named.includes(name), name);
        for (const name of ["api", "sis", "llm", "nats"]) assert.ok(!named.includes(name), name);
        assert.equal(problems[0].given, domain);
        assert.equal(problems[0].allowed, "a domain of at most 240 characters (the longest name made from it adds 13)");
        // 240 characters: `*.invocation.` makes exactly 253.
        const longest = `${label}.${label}.${label}.${"a".repeat(52)}.test`;
        assert.equal(longest.length, 240);
        parse(devRaw({ controlPlane: { global: { domain: longest } } }));
    });

    test("a chart URL and a chart path together", () => {
        assertProblems(
            devRaw({ controlPlane: { global: { helm: { sources: { url: "https://charts.example.com", path: "/charts" } } } } }),
            [
                {
                    key: `${CP}.global.helm.sources.path`,
                    message: "set either global.helm.sources.url (an https chart repository) or .path (a local directory), not both",
                    given: "/charts",
                },
            ],
        );
    });

    test("token mode with an empty webhook URL", () => {
        assertProblems(devRaw({ controlPlane: { nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: " " } } } } }), [
            {
                key: `${CP}.nats.authCallout.workerTokenAuth.webhookUrl`,
                message: "must not be empty when nats.workerAuth is token",
                given: "",
                allowed: "the NVCF API's webhook URL, e.g. http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth",
            },
        ]);
    });

    test("NATS off while OpenBao is on (its migrations copy the NATS nkeys)", () => {
        assertProblems(devRaw({ controlPlane: { nats: { enabled: false } } }), [
            {
                key: `${CP}.nats.enabled`,
                message: "openbao-server needs the nats release's Secrets (its migrations copy the NATS nkeys)",
                given: false,
                allowed: "true while openbao.enabled is true",
            },
        ]);
        parse(devRaw({ controlPlane: { nats: { enabled: false }, openbao: { enabled: false } } }));
    });

    test("the OpenBao JWT plugin lifecycle: bridge or versioned, and only with OpenBao on", () => {
        for (const mode of ["bridge", "versioned"]) {
            const settings = parse(devRaw({ controlPlane: { openbao: { jwtPluginLifecycle: { mode } } } }));
            assert.equal(settings.controlPlane.openbao.jwtPluginLifecycle.mode, mode);
        }
        assert.equal(parse(devRaw()).controlPlane.openbao.jwtPluginLifecycle.mode, undefined, "unset by default");
        assertProblems(devRaw({ controlPlane: { openbao: { jwtPluginLifecycle: { mode: "latest" } } } }), [
            {
                key: `${CP}.openbao.jwtPluginLifecycle.mode`,
                message: 'Invalid option: expected one of "bridge"|"versioned"',
                given: "latest",
            },
        ]);
        assertProblems(
            devRaw({ controlPlane: { nats: { enabled: false }, openbao: { enabled: false, jwtPluginLifecycle: { mode: "bridge" } } } }),
            [
                {
                    key: `${CP}.openbao.jwtPluginLifecycle.mode`,
                    message: "the JWT plugin lifecycle is OpenBao's, and openbao.enabled is false",
                    given: "bridge",
                    allowed: "unset while openbao.enabled is false",
                },
            ],
        );
    });

    test("openbaoRollout: on by default, its timeouts bounded", () => {
        assert.deepEqual(parse(devRaw()).openbaoRollout, { enabled: true, memberTimeoutSeconds: 600, pollSeconds: 5 });
        const off = parse(devRaw({ values: { openbaoRollout: { enabled: false } } }));
        assert.equal(off.openbaoRollout.enabled, false);
        assertProblems(devRaw({ values: { openbaoRollout: { memberTimeoutSeconds: 5, pollSeconds: 0 } } }), [
            { key: `${P}:openbaoRollout.memberTimeoutSeconds`, message: "Too small: expected number to be >=10", given: 5 },
            { key: `${P}:openbaoRollout.pollSeconds`, message: "Too small: expected number to be >=1", given: 0 },
        ]);
    });

    test("adminIssuerProxy.enabled false combined with adminIssuerProxy.gateway.enabled false", () => {
        assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false, gateway: { enabled: false } } } }), [
            {
                key: `${CP}.adminIssuerProxy.gateway.enabled`,
                message: "adminIssuerProxy.enabled: false already removes the route, so the two are not combined",
                given: false,
                allowed: "leave adminIssuerProxy.gateway.enabled unset when adminIssuerProxy.enabled is false",
            },
        ]);
    });

    test("missing gateway names, which every release's values require", () => {
        const empty = { name: "", namespace: "" };
        const when = "is required when ingress.gatewayApi.enabled is true";
        const whenNats = "is required when ingress.gatewayApi.routes.nats.enabled is true";
        const path = `${CP}.ingress.gatewayApi`;
        const raw = devRaw({
            controlPlane: {
                ingress: {
                    gatewayApi: { controllerNamespace: "", routes: { nats: { enabled: true } }, gateways: { shared: empty, grpc: empty } },
                },
            },
        });
        assertProblems(raw, [
            { key: `${path}.gateways.shared.name`, message: when, given: "", allowed: "a non-empty name" },
            { key: `${path}.gateways.shared.namespace`, message: when, given: "", allowed: "a non-empty name" },
            { key: `${path}.gateways.grpc.name`, message: when },
            { key: `${path}.gateways.grpc.namespace`, message: when },
            { key: `${path}.controllerNamespace`, message: when },
            { key: `${path}.gateways.nats.name`, message: whenNats, given: "", allowed: "a non-empty name" },
            { key: `${path}.gateways.nats.namespace`, message: whenNats },
        ]);
    });

    test("without the Gateway API routes, the admin issuer proxy's route still needs the shared gateway", () => {
        assertProblems(devRaw({ controlPlane: { ingress: { gatewayApi: { enabled: false, gateways: { shared: { name: " " } } } } } }), [
            { key: `${CP}.ingress.gatewayApi.gateways.shared.name`, message: "is required for the admin issuer proxy's route", given: " " },
        ]);
        parse(
            devRaw({
                controlPlane: {
                    ingress: { gatewayApi: { enabled: false, gateways: { shared: { name: "" } } } },
                    adminIssuerProxy: { gateway: { enabled: false } },
                },
            }),
        );
    });

    test("the control profile without state metrics", () => {
        assertProblems(devRaw({ controlPlane: { stateMetrics: { enabled: false } } }), [
            {
                key: `${CP}.stateMetrics.enabled`,
                message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
                given: false,
                allowed: "true, or observability.profile disabled or compute",
            },
        ]);
        parse(devRaw({ controlPlane: { stateMetrics: { enabled: false }, observability: { profile: "compute" } } }));
    });

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

    test("the observability components' modes: the bundle's rules between them", () => {
        const components = (modes: Record<string, string>) =>
            devRaw({
                controlPlane: {
                    observability: { components: Object.fromEntries(Object.entries(modes).map(([c, mode]) => [c, { mode }])) },
                },
            });
        parse(components({ prometheusOperatorCrds: "existing", otelOperator: "existing" }));
        parse(components({ collector: "disabled", targetAllocator: "disabled", discoveryRbac: "disabled" }));
        assertProblems(components({ otelOperator: "disabled", prometheusOperatorCrds: "disabled" }), [
            {
                key: `${CP}.observability.components.otelOperator.mode`,
                message:
                    "observability.components.otelOperator.mode cannot be disabled when the collector is installed; use existing for a customer-managed operator",
            },
            {
                key: `${CP}.observability.components.prometheusOperatorCrds.mode`,
                message:
                    "observability.components.prometheusOperatorCrds.mode cannot be disabled for an enabled profile because default monitors require the APIs; use existing for customer-managed CRDs",
            },
        ]);
        assertProblems(components({ collector: "existing" }), [
            {
                key: `${CP}.observability.components.targetAllocator.mode`,
                message: "observability.components.targetAllocator.mode=install requires observability.components.collector.mode=install",
            },
            {
                key: `${CP}.observability.components.discoveryRbac.mode`,
                message: "observability.components.discoveryRbac.mode=install requires observability.components.collector.mode=install",
            },
        ]);
        assertProblems(devRaw({ controlPlane: { metricsBackend: { mode: "disabled" } } }), [
            {
                key: `${CP}.metricsBackend.mode`,
                message: "metricsBackend.mode cannot be disabled when the collector is installed; use existing for an external backend",
            },
        ]);
        // Without a profile the observability bundle is not rendered at all.
        parse(devRaw({ controlPlane: { observability: { profile: "disabled", components: { collector: { mode: "existing" } } } } }));
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

    test("a disruption budget merges over base.yaml's: a partial block keeps its bound, and the charts need exactly one", () => {
        const both = 'one bound; set the other to "" (base.yaml sets one, and a partial block keeps it)';
        const given = (cassandra: object) => devRaw({ controlPlane: { cassandra: { podDisruptionBudget: cassandra } } });
        // base.yaml's minAvailable: 2 stays under a block that only turns the budget on.
        parse(given({ enabled: true }));
        assertProblems(given({ enabled: true, maxUnavailable: 1 }), [
            {
                key: `${CP}.cassandra.podDisruptionBudget`,
                message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both",
                given: { enabled: true, minAvailable: 2, maxUnavailable: 1 },
                allowed: both,
            },
        ]);
        parse(given({ enabled: true, minAvailable: "", maxUnavailable: 1 }));
        assertProblems(given({ enabled: true, minAvailable: "" }), [
            {
                key: `${CP}.cassandra.podDisruptionBudget`,
                message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable",
                given: { enabled: true, minAvailable: "" },
                allowed: "minAvailable or maxUnavailable: a count or a percentage",
            },
        ]);
        // The services' blocks carry maxUnavailable: 1 from base.yaml.
        parse(devRaw({ controlPlane: { apikeys: { podDisruptionBudget: { enabled: true } } } }));
        parse(devRaw({ controlPlane: { apikeys: { podDisruptionBudget: { enabled: true, minAvailable: "50%", maxUnavailable: "" } } } }));
        assertProblems(devRaw({ controlPlane: { reval: { podDisruptionBudget: { enabled: true, minAvailable: 1 } } } }), [
            {
                key: `${CP}.reval.podDisruptionBudget`,
                message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both",
                given: { enabled: true, maxUnavailable: 1, minAvailable: 1 },
                allowed: both,
            },
        ]);
        // A release that is not installed renders no budget, so its block is not checked.
        parse(devRaw({ controlPlane: { llmApiGateway: { podDisruptionBudget: { enabled: true, minAvailable: 1 } } } }));
    });

    test("the LLM request router address: DNS-or-IPv4:port or [IPv6]:port", () => {
        const raw = (address: string, enabled = true) =>
            devRaw({ controlPlane: { addons: { llm: { enabled } }, global: { workerEndpoints: { llmRequestRouterAddress: address } } } });
        assertProblems(raw("router:99999"), [
            {
                key: `${CP}.global.workerEndpoints.llmRequestRouterAddress`,
                message: "global.workerEndpoints.llmRequestRouterAddress must use DNS-or-IPv4:port or [IPv6]:port with port 1-65535",
                given: "router:99999",
            },
        ]);
        parse(raw("[fd00::1]:50071"));
        parse(raw("router:99999", false));
    });

    test("an existing request-router secret: no issuer, DNS names or domains, and a secret name", () => {
        const pki = {
            enabled: true,
            mode: "existingSecret",
            clusterIssuer: { enabled: true },
            dnsNames: ["llm.nvcf.test"],
            allowedDomains: "nvcf.test",
        };
        assertProblems(devRaw({ controlPlane: { addons: { llm: { enabled: true, pki } } } }), [
            {
                key: `${CP}.addons.llm.pki.clusterIssuer.enabled`,
                message:
                    "must be false or unset when addons.llm.pki.mode is existingSecret; cert-manager and the operator cannot both own the request-router certificate",
                given: true,
            },
            {
                key: `${CP}.addons.llm.pki.dnsNames`,
                message: "applies only to a stack-issued Certificate and must be empty when addons.llm.pki.mode is existingSecret",
                given: ["llm.nvcf.test"],
            },
            {
                key: `${CP}.addons.llm.pki.allowedDomains`,
                message: "must be empty when addons.llm.pki.mode is existingSecret",
                given: "nvcf.test",
            },
            {
                key: `${CP}.addons.llm.pki.secretName`,
                message: "addons.llm.pki.secretName is required when addons.llm.pki.mode is existingSecret",
            },
        ]);
    });

    test("a managed issuer needs DNS names, OpenBao, allowed domains and an image tag", () => {
        assertProblems(
            devRaw({ controlPlane: { addons: { llm: { enabled: true, pki: { enabled: true } } }, openbao: { enabled: false } } }),
            [
                {
                    key: `${CP}.addons.llm.pki.dnsNames`,
                    message: "must contain at least one DNS name when addons.llm.pki.enabled is true",
                    given: [],
                },
                {
                    key: `${CP}.openbao.enabled`,
                    message: "openbao.enabled must be true when addons.llm.pki.clusterIssuer management is enabled",
                    given: false,
                },
                {
                    key: `${CP}.addons.llm.pki.allowedDomains`,
                    message: "is required when addons.llm.pki.clusterIssuer management is enabled",
                    given: "",
                },
                {
                    key: `${CP}.addons.llm.pki.image.tag`,
                    message:
                        "addons.llm.pki.image.tag (or openbao.migrations.image.tag) is required when addons.llm.pki.clusterIssuer management is enabled",
                },
            ],
        );
    });

    test("a managed issuer is a ClusterIssuer; an unmanaged one needs only DNS names", () => {
        const pki = { enabled: true, dnsNames: ["llm.nvcf.test"], allowedDomains: "nvcf.test", image: { tag: "0.16.2" } };
        assertProblems(
            devRaw({
                controlPlane: {
                    addons: { llm: { enabled: true, pki: { ...pki, issuerKind: "Issuer", clusterIssuer: { enabled: true } } } },
                },
            }),
            [
                {
                    key: `${CP}.addons.llm.pki.issuerKind`,
                    message: "addons.llm.pki.clusterIssuer management supports only issuerKind=ClusterIssuer",
                    given: "Issuer",
                    allowed: "ClusterIssuer",
                },
            ],
        );
        parse(
            devRaw({
                controlPlane: {
                    addons: {
                        llm: { enabled: true, pki: { enabled: true, dnsNames: ["llm.nvcf.test"], clusterIssuer: { enabled: false } } },
                    },
                },
            }),
        );
    });

    test("nvcf-ui's OpenBao migrations tag under the 0.16.2 floor", () => {
        const raw = (tag: string, enabled = true) =>
            devRaw({ controlPlane: { addons: { nvcfUi: { enabled, openbaoMigrations: { image: { tag } } } } } });
        assertProblems(raw("0.16.1"), [
            {
                key: `${CP}.addons.nvcfUi.openbaoMigrations.image.tag`,
                message: "the nvcf-ui OpenBao migrations need 0.16.2 or newer",
                given: "0.16.1",
                allowed: ">= 0.16.2",
            },
        ]);
        parse(raw("v0.16.2"));
        parse(raw("0.16.1", false));
    });
});

describe("cross-key rules of releases, secrets and cluster access", () => {
    test("an override for a release the catalog does not have", () => {
        const error = assertProblems(devRaw({ values: { releases: { apis: { version: "1.0.0" } } } }), [
            { key: `${P}:releases.apis`, message: "unknown release", given: "apis", allowed: RELEASE_NAMES.join(", ") },
        ]);
        assert.match(error.message, /allowed: .*api-keys/);
    });

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

    test("no NGC key: the image pull secrets and the nvcr.io charts both need it", () => {
        assertProblems(devRaw({ secrets: { ngcApiKey: undefined } }), [
            {
                key: `${P}:ngcApiKey`,
                message:
                    "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                    "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
            },
            { key: `${P}:ngcApiKey`, message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)" },
        ]);
    });

    test("no NGC key with node-identity pulls or ECR images: only the charts need it, or chartRegistryPassword", () => {
        const charts = [{ key: `${P}:ngcApiKey`, message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)" }];
        assertProblems(devRaw({ secrets: { ngcApiKey: undefined }, values: { registry: { pullSecret: { enabled: false } } } }), charts);
        assertProblems(devRaw({ secrets: { ngcApiKey: undefined }, controlPlane: { global: { image: { registry: ECR } } } }), charts);
        parse(
            devRaw({
                secrets: { ngcApiKey: undefined, chartRegistryPassword: "p" },
                values: { registry: { pullSecret: { enabled: false } } },
            }),
        );
        parse(
            devRaw({
                secrets: { ngcApiKey: undefined },
                controlPlane: { global: { image: { registry: ECR }, helm: { sources: { registry: ECR } } } },
            }),
        );
    });
});

describe("cross-key rules of compute planes", () => {
    test("a control-plane pull secret name the NVCA mirror reserves, once there is a compute plane", () => {
        const registry = { pullSecret: { name: "ngc-api-key" } };
        assertProblems(devRaw({ values: { registry, computePlanes: [plane()] } }), [
            {
                key: `${P}:registry.pullSecret.name`,
                message: "the NVCA mirror reserves this pull secret name",
                given: "ngc-api-key",
                allowed: "e.g. nvcr-pull-secret",
            },
        ]);
        parse(devRaw({ values: { registry } }));
    });

    test("no admin token while the admin issuer proxy's route is off", () => {
        const message =
            "is required to register GPU clusters when the admin issuer proxy's route is off: " +
            "set a token with the cluster-management scope from your identity provider " +
            "(`pulumi config set --secret nvcfAdminToken <token>`)";
        assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false } }, values: { computePlanes: [plane()] } }), [
            { key: `${P}:nvcfAdminToken`, message },
        ]);
        assertProblems(
            devRaw({ controlPlane: { adminIssuerProxy: { gateway: { enabled: false } } }, values: { computePlanes: [plane()] } }),
            [{ key: `${P}:nvcfAdminToken`, message }],
        );
        parse(
            devRaw({
                controlPlane: { adminIssuerProxy: { enabled: false } },
                values: { computePlanes: [plane()] },
                secrets: { nvcfAdminToken: "t" },
            }),
        );
    });

    test("the platform smoke check: an image with its registry host, and a token it can get", () => {
        const smoke = (extra: Record<string, unknown>) => ({ checks: { smoke: { platform: true, ...extra } } });
        const key = `${P}:checks.smoke.functionImage`;
        assertProblems(devRaw({ values: smoke({}) }), [
            {
                key,
                message:
                    "is required with checks.smoke.platform: the function's image, which the API looks up in its registry with the default account's credential",
                allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
            },
        ]);
        assertProblems(devRaw({ values: smoke({ functionImage: "fastapi-echo:1.0" }) }), [
            {
                key,
                message: "must start with its registry host: the API refuses an image without one (Invalid registry URL)",
                given: "fastapi-echo:1.0",
                allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
            },
        ]);
        const image = "nvcr.io/example/team/echo:1.0";
        assertProblems(devRaw({ controlPlane: { adminIssuerProxy: { enabled: false } }, values: smoke({ functionImage: image }) }), [
            {
                key: `${P}:nvcfAdminToken`,
                message:
                    "is required for checks.smoke.platform when the admin issuer proxy's route is off: a token with the " +
                    "register_function, list_functions and delete_function scopes (`pulumi config set --secret nvcfAdminToken <token>`)",
            },
        ]);
        const settings = parse(devRaw({ values: smoke({ functionImage: image }) }));
        assert.deepEqual(
            [settings.checks.smoke.helmTests, settings.checks.smoke.platform, settings.checks.smoke.timeoutSeconds],
            [true, true, 300],
        );
        assert.equal(parse(devRaw()).checks.smoke.platform, false, "off by default: it needs the Gateway from this machine");
    });

    test("an EKS compute plane with another way to reach it", () => {
        const message = "an EKS cluster is reached through its name alone: no sameAsControlPlane, context or kubeconfig";
        const key = `${P}:computePlanes[0].cluster.eks`;
        assertProblems(devRaw({ values: { computePlanes: [plane({ cluster: { sameAsControlPlane: true, eks: EKS } })] } }), [
            { key, message },
        ]);
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

    test("KAIScheduler without the KAI scheduler", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"] })] } }), [
            {
                key: `${P}:computePlanes[0].featureGates`,
                message: "the KAIScheduler gate keeps NVCA unhealthy on a cluster without the KAI scheduler",
                given: "KAIScheduler",
                allowed: "addons.kaiScheduler.enabled: true, or kaiSchedulerInstalled: true once the KAI scheduler runs there",
            },
        ]);
        parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"], kaiSchedulerInstalled: true })] } }));
        parse(
            devRaw({ values: { computePlanes: [plane({ featureGates: ["KAIScheduler"], addons: { kaiScheduler: { enabled: true } } })] } }),
        );
    });

    test("the add-ons' chart sources and topology labels follow their grammars", () => {
        const addons = {
            kaiScheduler: { enabled: true, repository: "oci://ghcr.io/kai\nscheduler" },
            topologyAwareScheduling: {
                enabled: true,
                chartsPath: " charts",
                topologies: [{ name: "t", levels: [{ nodeLabel: "Bad Label" }] }],
            },
        };
        const error = configError(devRaw({ values: { computePlanes: [plane({ addons })] } }));
        const keys = error.problems.map((p) => p.key);
        assert.deepEqual(keys, [
            `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].levels[0].nodeLabel`,
            `${P}:computePlanes[0].addons.topologyAwareScheduling.chartsPath`,
            `${P}:computePlanes[0].addons.kaiScheduler.repository`,
        ]);
        assert.match(error.problems[0].message, /must be a Kubernetes label or annotation key/);
        assert.match(error.problems[1].message, /must be a path: it starts or ends with white space/);
        assert.match(error.problems[2].message, /must be a path/);
        parse(
            devRaw({
                values: {
                    computePlanes: [plane({ addons: { kaiScheduler: { enabled: true, repository: "oci://mirror.example.com/kai" } } })],
                },
            }),
        );
    });

    test("DynamoOperatorSupport without the Dynamo operator", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ featureGates: ["DynamoOperatorSupport"] })] } }), [
            {
                key: `${P}:computePlanes[0].featureGates`,
                message: "the DynamoOperatorSupport gate keeps NVCA unhealthy on a cluster without the Dynamo operator",
                given: "DynamoOperatorSupport",
                allowed: "addons.dynamoOperator.enabled: true, or dynamoOperatorInstalled: true once the Dynamo operator runs there",
            },
        ]);
        parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["DynamoOperatorSupport"], dynamoOperatorInstalled: true })] } }));
        // A gate turned off (`-Gate`) names nothing.
        parse(devRaw({ values: { computePlanes: [plane({ featureGates: ["-DynamoOperatorSupport", "-KAIScheduler"] })] } }));
    });

    const kai = { kaiScheduler: { enabled: true } };
    const grove = { groveOperator: { enabled: true } };
    const dynamo = { dynamoOperator: { enabled: true } };
    const topology = { topologyAwareScheduling: { enabled: true, chartsPath: "/srv/nvcf/charts" } };
    const needsKai = { given: true, allowed: "false, or addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true" };

    test("the add-on DAG: Grove and the topology need KAI, Dynamo needs Grove", () => {
        assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...topology, ...grove, ...dynamo } })] } }), [
            {
                key: `${P}:computePlanes[0].addons.topologyAwareScheduling.enabled`,
                message: "needs the KAI scheduler on the same cluster",
                ...needsKai,
            },
            {
                key: `${P}:computePlanes[0].addons.groveOperator.enabled`,
                message: "needs the KAI scheduler on the same cluster",
                ...needsKai,
            },
        ]);
        assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...dynamo } })] } }), [
            {
                key: `${P}:computePlanes[0].addons.dynamoOperator.enabled`,
                message: "needs the Grove operator on the same cluster",
                given: true,
                allowed: "false, or addons.groveOperator.enabled: true or groveOperatorInstalled: true",
            },
        ]);
        parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...grove, ...dynamo, ...topology } })] } }));
    });

    test("an add-on installed outside the stack satisfies the DAG", () => {
        parse(devRaw({ values: { computePlanes: [plane({ kaiSchedulerInstalled: true, addons: { ...grove, ...topology } })] } }));
        parse(
            devRaw({ values: { computePlanes: [plane({ kaiSchedulerInstalled: true, groveOperatorInstalled: true, addons: dynamo })] } }),
        );
    });

    test("the topology chart is in no registry: a directory that holds it, or a repository it was pushed to, is required", () => {
        const on = { topologyAwareScheduling: { enabled: true } };
        assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...on } })] } }), [
            {
                key: `${P}:computePlanes[0].addons.topologyAwareScheduling.chartsPath`,
                message:
                    "the nvcf-cluster-topology chart ships only inside NVIDIA's bundle (deploy/stacks/nvcf-compute-plane/charts), in no chart registry",
                given: "unset",
                allowed:
                    "the directory holding the bundle's charts (or global.helm.sources.path, when it holds them all), or " +
                    "addons.topologyAwareScheduling.repository: a chart repository you pushed it to",
            },
        ]);
        const pushed = { topologyAwareScheduling: { enabled: true, repository: "oci://registry.example.com/nvcf-charts" } };
        parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...pushed } })] } }));
        parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...on }, helmSources: { path: "/srv/nvcf/charts" } })] } }));
    });

    test("an add-on both installed by the stack and declared installed outside it", () => {
        assertProblems(
            devRaw({
                values: {
                    computePlanes: [
                        plane({
                            kaiSchedulerInstalled: true,
                            dynamoOperatorInstalled: true,
                            groveOperatorInstalled: true,
                            addons: { ...kai, ...dynamo },
                        }),
                    ],
                },
            }),
            [
                {
                    key: `${P}:computePlanes[0].addons.kaiScheduler.enabled`,
                    message:
                        "the stack would install a second copy of an add-on declared installed outside it (kaiSchedulerInstalled: true)",
                    given: true,
                    allowed: "false while kaiSchedulerInstalled is true, or kaiSchedulerInstalled: false",
                },
                {
                    key: `${P}:computePlanes[0].addons.dynamoOperator.enabled`,
                    message:
                        "the stack would install a second copy of an add-on declared installed outside it (dynamoOperatorInstalled: true)",
                    given: true,
                    allowed: "false while dynamoOperatorInstalled is true, or dynamoOperatorInstalled: false",
                },
            ],
        );
    });
});

test("every cross-key problem comes at once: control plane, releases, secrets, compute planes", () => {
    const error = assertProblems(
        devRaw({
            controlPlane: { global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } }, stateMetrics: { enabled: false } },
            values: {
                releases: { apis: {} },
                computePlanes: [{ clusterName: "gpu-x" }, plane({ clusterName: "gpu-y", featureGates: ["KAIScheduler"] })],
            },
            secrets: { ngcApiKey: undefined, chartRegistryPassword: "p" },
        }),
        [
            {
                key: `${CP}.global.image.repository`,
                message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            },
            {
                key: `${CP}.stateMetrics.enabled`,
                message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
            },
            { key: `${P}:releases.apis`, message: "unknown release" },
            {
                key: `${P}:ngcApiKey`,
                message:
                    "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                    "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
            },
            { key: `${P}:computePlanes[0].cluster`, message: "says nothing about how to reach the GPU cluster gpu-x" },
            {
                key: `${P}:computePlanes[1].featureGates`,
                message: "the KAIScheduler gate keeps NVCA unhealthy on a cluster without the KAI scheduler",
            },
        ],
    );
    assert.match(error.message, /^Invalid stack configuration:\n {2}- nvcf-self-managed:controlPlane\.global\.image\.repository: /);
    assert.equal(error.message.split("\n").filter((l) => l.startsWith("  - ")).length, 6);
});

describe("compute-plane add-on settings", () => {
    test("all off by default, with the bundle's topology", () => {
        const [settings] = parse(devRaw({ values: { computePlanes: [plane()] } })).computePlanes;
        assert.deepEqual(
            [
                settings.addons.kaiScheduler.enabled,
                settings.addons.groveOperator.enabled,
                settings.addons.dynamoOperator.enabled,
                settings.addons.topologyAwareScheduling.enabled,
            ],
            [false, false, false, false],
        );
        assert.deepEqual(settings.addons.topologyAwareScheduling.topologies, [
            { name: "nvcf-mnnvl-topology", levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }] },
        ]);
        assert.deepEqual(settings.addons.groveOperator.network, {});
        assert.deepEqual(
            [settings.kaiSchedulerInstalled, settings.groveOperatorInstalled, settings.dynamoOperatorInstalled],
            [false, false, false],
        );
    });

    test("malformed add-on settings: an unknown add-on, a repository, a quantity, a topology", () => {
        assertProblems(
            devRaw({
                values: {
                    computePlanes: [
                        plane({
                            addons: {
                                kaiScheduler: { repository: "ghcr.io/kai", binder: { resources: { limits: { cpu: "four" } } } },
                                topologyAwareScheduling: { topologies: [{ name: "Mnnvl", levels: [] }] },
                                volcano: { enabled: true },
                            },
                        }),
                    ],
                },
            }),
            [
                {
                    key: `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].name`,
                    message: "must be an RFC 1123 name",
                    given: "Mnnvl",
                },
                {
                    key: `${P}:computePlanes[0].addons.topologyAwareScheduling.topologies[0].levels`,
                    message: "needs at least one level, widest domain first",
                },
                {
                    key: `${P}:computePlanes[0].addons.kaiScheduler.repository`,
                    message: "must be an https URL, an oci:// repository or a path",
                    given: "ghcr.io/kai",
                },
                {
                    key: `${P}:computePlanes[0].addons.kaiScheduler.binder.resources.limits.cpu`,
                    message: "must be a Kubernetes quantity such as 500m or 2Gi",
                    given: "four",
                },
                { key: `${P}:computePlanes[0].addons.volcano`, message: "unknown key (a typo?)" },
            ],
        );
    });
});

describe("free-form chart values: the fields Kubernetes takes only as strings", () => {
    const problemsOf = (values: Record<string, unknown>) =>
        configError(devRaw({ values: { releases: { api: { values } } } })).problems.map((p) => [p.key, p.message, p.given]);
    const QUOTE = "(quote numbers and booleans; with `pulumi config set --path`, add `--type string`)";
    test("an unquoted image tag, annotation or label value, and an environment variable's value (its type only shown)", () => {
        assert.deepEqual(
            problemsOf({
                image: { tag: 1.1 },
                podAnnotations: { "prometheus.io/scrape": true },
                deployment: { labels: { tier: 2 } },
                env: [{ name: "API_TOKEN", value: 12345 }],
            }),
            [
                [`${P}:releases.api.values.image.tag`, `an image tag must be a string ${QUOTE}`, 1.1],
                [`${P}:releases.api.values.podAnnotations["prometheus.io/scrape"]`, `podAnnotations values must be strings ${QUOTE}`, true],
                [`${P}:releases.api.values.deployment.labels.tier`, `labels values must be strings ${QUOTE}`, 2],
                [`${P}:releases.api.values.env[0].value`, `an environment variable's value must be a string ${QUOTE}`, "a number"],
            ],
        );
    });
    test("strings there, and numbers anywhere else, pass", () => {
        parse(
            devRaw({
                values: {
                    releases: {
                        api: {
                            values: {
                                image: { tag: "1.10" },
                                replicaCount: 3,
                                resources: { limits: { cpu: 1 } },
                                env: [{ name: "A", value: "1" }],
                            },
                        },
                    },
                },
            }),
        );
    });
});

describe('a structured key whose value is one string, as `pulumi config set <key> "<yaml>"` stores it', () => {
    test("is refused naming the key and the type, not with the SDK's JSON message", () => {
        const { problems } = configError(devRaw({ values: { checks: "healthGate:\n  timeoutSeconds: 30" } }));
        assert.deepEqual(
            problems.map((p) => [p.key, p.message]),
            [[`${P}:checks`, "Invalid input: expected object, received string"]],
        );
    });
});
