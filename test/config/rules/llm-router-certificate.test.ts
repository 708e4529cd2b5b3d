import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

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
    assertProblems(devRaw({ controlPlane: { addons: { llm: { enabled: true, pki: { enabled: true } } }, openbao: { enabled: false } } }), [
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
    ]);
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
