import type { ControlPlaneRule, Problem } from "./rule";
import { managedIssuer } from "../model/derived-facts";

/**
 * The LLM request router's certificate (addons.llm.pki): an existing Secret names it and nothing
 * else; a stack-issued one needs its DNS names, and a managed issuer OpenBao, its domains and an image.
 */
export const llmRouterCertificate: ControlPlaneRule = (cp) => {
    const llm = cp.addons.llm;
    const pki = llm.pki;
    if (!llm.enabled || !pki.enabled) return [];
    const problems: Problem[] = [];
    if (pki.mode === "existingSecret") {
        if (pki.clusterIssuer?.enabled) {
            problems.push({
                path: "addons.llm.pki.clusterIssuer.enabled",
                message:
                    "must be false or unset when addons.llm.pki.mode is existingSecret; cert-manager and the operator cannot both own the request-router certificate",
                given: true,
            });
        }
        if (pki.dnsNames.length > 0) {
            problems.push({
                path: "addons.llm.pki.dnsNames",
                message: "applies only to a stack-issued Certificate and must be empty when addons.llm.pki.mode is existingSecret",
                given: pki.dnsNames,
            });
        }
        if (pki.allowedDomains !== "") {
            problems.push({
                path: "addons.llm.pki.allowedDomains",
                message: "must be empty when addons.llm.pki.mode is existingSecret",
                given: pki.allowedDomains,
            });
        }
        if (!pki.secretName) {
            problems.push({
                path: "addons.llm.pki.secretName",
                message: "addons.llm.pki.secretName is required when addons.llm.pki.mode is existingSecret",
            });
        }
        return problems;
    }
    if (pki.dnsNames.length === 0) {
        problems.push({
            path: "addons.llm.pki.dnsNames",
            message: "must contain at least one DNS name when addons.llm.pki.enabled is true",
            given: [],
        });
    }
    if (managedIssuer(cp)) {
        if (pki.issuerKind !== "ClusterIssuer") {
            problems.push({
                path: "addons.llm.pki.issuerKind",
                message: "addons.llm.pki.clusterIssuer management supports only issuerKind=ClusterIssuer",
                given: pki.issuerKind,
                allowed: "ClusterIssuer",
            });
        }
        if (!cp.openbao.enabled) {
            problems.push({
                path: "openbao.enabled",
                message: "openbao.enabled must be true when addons.llm.pki.clusterIssuer management is enabled",
                given: false,
            });
        }
        if (pki.allowedDomains === "") {
            problems.push({
                path: "addons.llm.pki.allowedDomains",
                message: "is required when addons.llm.pki.clusterIssuer management is enabled",
                given: "",
            });
        }
        if (!pki.image.tag && !cp.openbao.migrations.image.tag) {
            problems.push({
                path: "addons.llm.pki.image.tag",
                message:
                    "addons.llm.pki.image.tag (or openbao.migrations.image.tag) is required when addons.llm.pki.clusterIssuer management is enabled",
            });
        }
    }
    return problems;
};
