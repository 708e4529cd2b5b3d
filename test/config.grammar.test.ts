import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
    chartVersion,
    dnsLabel,
    dnsSubdomain,
    filePath,
    Grammar,
    hostHeader,
    hostname,
    imageName,
    imageReference,
    imageTag,
    labelValue,
    qualifiedName,
    registryHost,
    registryUsername,
    repositoryPath,
    singleLine,
} from "../config/model/grammar";
import { assertProblems, devRaw, parse } from "./support/raw-config";

// Each grammar with values on both sides of its edges; then the schemas that apply them.

function edges(grammar: Grammar, valid: readonly string[], invalid: readonly string[]): void {
    for (const v of valid) assert.equal(grammar.check(v), undefined, `${JSON.stringify(v)} is ${grammar.what}`);
    for (const v of invalid) assert.equal(typeof grammar.check(v), "string", `${JSON.stringify(v)} is not ${grammar.what}`);
}

const l63 = "a".repeat(63);

describe("the grammars", () => {
    test("RFC 1123 label", () => {
        edges(dnsLabel, ["a", "0", "nvcf", "a-b", l63, "9abc"], ["", "A", "a.b", "-a", "a-", "a_b", `${l63}a`, "a b", "a\nb", "ä"]);
    });

    test("RFC 1123 subdomain", () => {
        const long = Array.from({ length: 4 }, () => l63).join(".") + ".abc"; // 256 characters
        edges(
            dnsSubdomain,
            ["a", "nvcf.test", `${l63}.${l63}`, "a-1.b-2.c"],
            ["", "a..b", ".a", "a.", "A.b", `${l63}a.b`, long, "a b", "a\r\nb", "*.a"],
        );
    });

    test("hostname (routes, certificates): a subdomain, optionally a leading wildcard", () => {
        edges(
            hostname,
            ["api.nvcf.test", "*.invocation.nvcf.test", "localhost"],
            ["", "*", "a.*.b", "**.a", "API.nvcf.test", `${l63}x.test`, "a b.test", "a.test\n"],
        );
    });

    test("label and annotation keys", () => {
        edges(
            qualifiedName,
            ["app", "nvcf.nvidia.com/workload", "k8s.io/a_b.c-d", "A", `example.com/${l63}`, "prometheus.io/scrape"],
            ["", "/a", "a/", "a/b/c", "-a", "a-", "Example.com/a", `${l63}a`, "a b", "a\nb", "a:b"],
        );
    });

    test("label values", () => {
        edges(labelValue, ["", "worker", "control-plane", "A_b.c", l63], ["-a", "a-", `${l63}a`, "a b", "a\n", "a/b"]);
    });

    test("image tags: pinned, never latest", () => {
        edges(
            imageTag,
            ["3.2.7", "v1", "_x", "1.0.0-rc.1", "a".repeat(128)],
            ["", "latest", ".1", "-1", "a b", "1\n", "a".repeat(129), "a:b", "a/b"],
        );
    });

    test("registry hosts and Host headers: host[:port]", () => {
        const valid = ["nvcr.io", "localhost", "registry.example.com:5000", "10.0.0.1:8080", "[::1]:5000", "Nvcr.io", "sis.nvcf.test"];
        const invalid = [
            "",
            "https://nvcr.io",
            "nvcr.io/x",
            "nvcr.io:0",
            "nvcr.io:65536",
            "nvcr.io:x",
            "a b",
            "sis.test\r\nX-Injected: 1",
            "a..b",
            `${l63}a.io`,
            "user@host",
        ];
        edges(registryHost, valid, invalid);
        edges(hostHeader, valid, invalid);
    });

    test("repository paths and image names", () => {
        edges(
            repositoryPath,
            ["nvidia/nvcf", "a", "a__b/c.d-e", "org/team/sub"],
            ["", "Nvidia/nvcf", "a//b", "/a", "a/", "a b", "a\n", "-a", "a..b"],
        );
        edges(
            imageName,
            ["nvidia/nvcf", "nvcr.io/nvidia/nvcf", "localhost:5000/a", "ghcr.io/a/b"],
            ["", "nvcr.io/", "https://nvcr.io/a", "a:b/c", "A/b"],
        );
    });

    test("image references: pinned by tag or digest", () => {
        const digest = `sha256:${"a".repeat(64)}`;
        edges(
            imageReference,
            ["busybox:1.36", "registry.k8s.io/pause:3.9", `a/b@${digest}`, `a:1@${digest}`, "localhost:5000/a:1"],
            ["", "busybox", "busybox:latest", "busybox:", "localhost:5000/a", "a:1 ", "a:1\n", "A:1", "a@sha256:x", "a:b:c"],
        );
    });

    test("chart versions: one semantic version", () => {
        edges(
            chartVersion,
            ["1.21.3", "v1.17.0", "0.0.0", "1.0.0-rc.1", "1.0.0+build.5", "1.0.0-alpha-1"],
            ["", "latest", "1.2", "^1.2.3", ">=1.0.0", "1.2.3 ", "01.2.3", "1.2.3\n", "1.2.x"],
        );
    });

    test("paths, single lines and registry user names", () => {
        edges(filePath, ["/charts", "./charts", "/a dir/charts"], ["", " /a", "/a ", "/a\nb", "/a\tb"]);
        edges(singleLine, ["", "http://x:8080", "   "], [" x", "x ", "a\nb", "a\rb", "a\u0000"]);
        edges(registryUsername, ["$oauthtoken", "user@example.com"], ["", "a:b", "a b", "a\n"]);
    });
});

const P = "nvcf-self-managed";
const CP = `${P}:controlPlane`;
const plane = (extra: Record<string, unknown> = {}) => ({ clusterName: "gpu", cluster: { sameAsControlPlane: true }, ...extra });

describe("the grammars in the schemas: key, value and grammar in one problem", () => {
    test("a 64-character namespace", () => {
        const ns = "a".repeat(64);
        assertProblems(devRaw({ controlPlane: { observability: { namespace: ns } } }), [
            {
                key: `${CP}.observability.namespace`,
                message: `must be an RFC 1123 label: the label aaaaaaaaaaaaaaaaaaaa... is 64 characters long (at most 63)`,
                given: ns,
                allowed: dnsLabel.allowed,
            },
        ]);
    });

    test("a domain with a label over 63 characters keeps the bundle's message", () => {
        assertProblems(devRaw({ controlPlane: { global: { domain: `${"a".repeat(64)}.test` } } }), [
            { key: `${CP}.global.domain`, message: "global.domain must be a DNS name", allowed: undefined },
        ]);
    });

    test("node selectors, tolerations, labels and annotation keys", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    global: {
                        nodeSelectors: { all: { key: "bad key", value: "Worker Nodes" } },
                        tolerations: { all: [{ key: "gpu", operator: "Exists", effect: "NoSchedul" }] },
                    },
                    addons: { vanityGateway: { podLabels: { "app/": "x" }, nodeSelector: { pool: "a\nb" } } },
                    api: { podAnnotations: { "bad key": "x" } },
                    ingress: { gatewayApi: { routes: { invocation: { routeAnnotations: { "a/b/c": "x" } } } } },
                },
            }),
            [
                {
                    key: `${CP}.global.nodeSelectors.all.key`,
                    message: "must be a Kubernetes label or annotation key: it contains a space",
                    given: "bad key",
                },
                {
                    key: `${CP}.global.nodeSelectors.all.value`,
                    message: "must be a Kubernetes label value: it contains a space",
                    given: "Worker Nodes",
                },
                {
                    key: `${CP}.global.tolerations.all[0].effect`,
                    message: 'Invalid option: expected one of ""|"NoSchedule"|"PreferNoSchedule"|"NoExecute"',
                    given: "NoSchedul",
                },
                {
                    key: `${CP}.addons.vanityGateway.podLabels["app/"]`,
                    message: "the key must be a Kubernetes label or annotation key: its name part is empty",
                    given: "app/",
                },
                {
                    key: `${CP}.addons.vanityGateway.nodeSelector.pool`,
                    message: "must be a Kubernetes label value: it contains a newline",
                    given: "a\nb",
                },
                {
                    key: `${CP}.api.podAnnotations["bad key"]`,
                    message: "the key must be a Kubernetes label or annotation key: it contains a space",
                    given: "bad key",
                },
                {
                    key: `${CP}.ingress.gatewayApi.routes.invocation.routeAnnotations["a/b/c"]`,
                    message: "the key must be a Kubernetes label or annotation key: it has more than one '/'",
                    given: "a/b/c",
                },
            ],
        );
    });

    test("images, tags, registries, repositories and chart versions", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    global: { image: { registry: "nvcr.io\n", repository: "" }, helm: { sources: { registry: "https://nvcr.io" } } },
                    sis: { image: { tag: "latest" } },
                    collector: { image: "otel/collector" },
                },
                values: { releases: { api: { version: "" } } },
            }),
            [
                {
                    key: `${CP}.global.helm.sources.registry`,
                    message: "must be a registry host: it is not host or host:port (no scheme, path or user)",
                    given: "https://nvcr.io",
                },
                {
                    key: `${CP}.global.image.registry`,
                    message: "must be a registry host: it contains a newline",
                    given: "nvcr.io\n",
                    allowed: registryHost.allowed,
                },
                { key: `${CP}.global.image.repository`, message: "must be a repository path: it is empty", given: "" },
                {
                    key: `${CP}.collector.image`,
                    message: "must be a pinned image reference: it has neither a tag nor a digest, so it is not pinned",
                    given: "otel/collector",
                },
                { key: `${CP}.sis.image.tag`, message: "must be a pinned image tag: latest is not a pinned version", given: "latest" },
                {
                    key: `${P}:releases.api.version`,
                    message: "version must be a semantic version",
                    given: "",
                    allowed: chartVersion.allowed,
                },
            ],
        );
    });

    test("numbers: int32 replica counts, PDB bounds, ports", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    cassandra: { replicaCount: 2 ** 31, podDisruptionBudget: { minAvailable: -1 } },
                    apikeys: { podDisruptionBudget: { maxUnavailable: "150%" } },
                    ingress: { gatewayApi: { routes: { vanityGateway: { backend: { port: 70000 } } } } },
                },
            }),
            [
                { key: `${CP}.cassandra.replicaCount`, message: "must be at most 2147483647 (a Kubernetes int32)", given: 2 ** 31 },
                { key: `${CP}.cassandra.podDisruptionBudget.minAvailable`, message: "must be a count or a percentage", given: -1 },
                { key: `${CP}.apikeys.podDisruptionBudget.maxUnavailable`, message: "must be a count or a percentage", given: "150%" },
                { key: `${CP}.ingress.gatewayApi.routes.vanityGateway.backend.port`, message: "must be a port, 1-65535", given: 70000 },
            ],
        );
    });

    test("hostnames and certificate DNS names", () => {
        assertProblems(
            devRaw({
                controlPlane: {
                    addons: { llm: { pki: { dnsNames: ["router.nvcf.test", "anything at all"] } } },
                    ingress: { gatewayApi: { routes: { vanityGateway: { hostnames: [`${"a".repeat(64)}.test`] } } } },
                },
            }),
            [
                {
                    key: `${CP}.addons.llm.pki.dnsNames[1]`,
                    message: "must be a DNS hostname: it contains a space",
                    given: "anything at all",
                },
                {
                    key: `${CP}.ingress.gatewayApi.routes.vanityGateway.hostnames[0]`,
                    message: "must be a DNS hostname: the label aaaaaaaaaaaaaaaaaaaa... is 64 characters long (at most 63)",
                },
            ],
        );
    });

    test("compute planes: Host-header overrides, registries, chart and image versions, node selector", () => {
        assertProblems(
            devRaw({
                values: {
                    computePlanes: [
                        plane({
                            selfManaged: { icmsServiceHostHeaderOverride: "sis.nvcf.test\r\nX-Evil: 1" },
                            registration: { apiKeysHostHeader: "api-keys.nvcf.test extra" },
                            image: { registry: "nvcr.io/nvidia" },
                            nvcaOperator: { chartVersion: "", imageTag: "latest" },
                            nodeSelector: { key: "Pool Name" },
                            inotifyTuner: { initImage: "busybox" },
                        }),
                    ],
                },
            }),
            [
                {
                    key: `${P}:computePlanes[0].selfManaged.icmsServiceHostHeaderOverride`,
                    message: "must be a Host header value: it contains a carriage return",
                },
                {
                    key: `${P}:computePlanes[0].registration.apiKeysHostHeader`,
                    message: "must be a Host header value: it contains a space",
                },
                {
                    key: `${P}:computePlanes[0].image.registry`,
                    message: "must be a registry host: it is not host or host:port (no scheme, path or user)",
                },
                {
                    key: `${P}:computePlanes[0].nvcaOperator.chartVersion`,
                    message: "must be a pinned semantic version: it is empty, which would install whatever version is newest",
                },
                {
                    key: `${P}:computePlanes[0].nvcaOperator.imageTag`,
                    message: "must be a pinned image tag: latest is not a pinned version",
                },
                {
                    key: `${P}:computePlanes[0].nodeSelector.key`,
                    message: "must be a Kubernetes label or annotation key: it contains a space",
                },
                {
                    key: `${P}:computePlanes[0].inotifyTuner.initImage`,
                    message: "must be a pinned image reference: it has neither a tag nor a digest, so it is not pinned",
                },
            ],
        );
    });

    test("registry credentials: a pull secret server with CR/LF, a user name with ':'", () => {
        assertProblems(devRaw({ values: { registry: { pullSecret: { server: "nvcr.io\r\n", username: "a:b" } } } }), [
            { key: `${P}:registry.pullSecret.server`, message: "must be a registry host: it contains a carriage return" },
            {
                key: `${P}:registry.pullSecret.username`,
                message: "must be a registry user name: it contains ':', which separates user and password in a docker auth",
            },
        ]);
    });

    test("the bundle's own forms stay accepted: empty tags, unset gateways, the placeholder (for the rules' message), wildcards", () => {
        parse(
            devRaw({
                controlPlane: {
                    global: { storageClass: "", nodeSelectors: { all: null }, tolerations: { all: [{ operator: "Exists" }] } },
                    sis: { image: { tag: "" } },
                    cassandra: {
                        migrations: { image: { tag: "", pullPolicy: "" } },
                        podDisruptionBudget: { enabled: true, minAvailable: "50%" },
                    },
                    ingress: { gatewayApi: { routes: { nvcfApi: { grpc: { enabled: true, hostnames: ["*.grpc.nvcf.test"] } } } } },
                },
                values: { computePlanes: [plane({ smbCsiDriver: { version: "v1.17.0" } })], releases: { api: { version: "1.25.2" } } },
            }),
        );
        assertProblems(devRaw({ controlPlane: { global: { image: { repository: "YOUR_ORG/YOUR_TEAM" } } } }), [
            {
                key: `${CP}.global.image.repository`,
                message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            },
        ]);
    });
});
