import * as tls from "node:tls";
import { GATEWAY_API } from "../contracts/gateway-api";
import { excerpt, HttpError, httpRequest } from "../http/client";
import type { CheckResult } from "./check-result";
import { getObject, type Kube } from "../kubernetes/client";
import { messageOf } from "../text/message-of";

/**
 * The admin route checked where users reach it, not only in the cluster: a load balancer that
 * forwards any Host still hands the request to the Gateway when the hostname has no DNS record.
 * The request dials the load balancer with the route's hostname as TLS server name and Host
 * (`curl --resolve`), as NVIDIA's operations do: 404 means no route is attached.
 */
export const EDGE_CHECK = "admin-route-at-edge";

/** Where the admin route would be served, and the Gateway whose load balancer is the edge. */
export interface EdgeRouteProbe {
    /** `api-keys.<domain>`. */
    readonly host: string;
    readonly path: string;
    readonly port: number;
    readonly gateway: { readonly namespace: string; readonly name: string };
    /** The load balancer's address when the Gateway reports none (or another one should be dialled). */
    readonly address?: string;
    /** PEM CA bundle the edge's certificate is checked against, besides the system's (a private PKI). */
    readonly ca?: string;
    readonly timeoutSeconds: number;
}

/** Node's codes for a certificate the client refused: the request never reached the Gateway's routing. */
const CERTIFICATE_ERRORS = [
    "ERR_TLS_CERT_ALTNAME_INVALID",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "CERT_HAS_EXPIRED",
];

const inconclusive = (detail: string, fix: string): CheckResult => ({ name: EDGE_CHECK, ok: false, inconclusive: true, detail, fix });

export async function adminRouteAtEdge(kube: Kube, probe: EdgeRouteProbe): Promise<CheckResult> {
    const url = `https://${probe.host}${probe.port === 443 ? "" : `:${probe.port}`}${probe.path}`;
    const gateway = `${probe.gateway.namespace}/${probe.gateway.name}`;
    let address = probe.address;
    if (!address) {
        const gw = await getObject(
            kube,
            `/apis/${GATEWAY_API.group}/v1/namespaces/${probe.gateway.namespace}/gateways/${probe.gateway.name}`,
        );
        const addresses = (gw?.status?.addresses ?? []) as { value?: string }[];
        address = addresses.find((a) => a.value)?.value;
    }
    const curl = (a: string, insecure = "") =>
        `curl -s${insecure} -o /dev/null -w '%{http_code}\\n' --resolve ${probe.host}:${probe.port}:${a} ${url}; echo "curl exit: $?"`;
    if (!address) {
        return inconclusive(
            `Gateway ${gateway} reports no load balancer address, so ${url} was not checked at the edge`,
            `check it from a machine that reaches the load balancer: ${curl("<load balancer address>")}; or set checks.healthGate.edgeAddress`,
        );
    }
    const get = (insecure: boolean) =>
        httpRequest({
            method: "GET",
            url,
            connectTo: address,
            timeoutMs: probe.timeoutSeconds * 1000,
            retries: 1,
            tls: insecure ? { rejectUnauthorized: false } : probe.ca ? { ca: [...tls.rootCertificates, probe.ca] } : {},
        });
    const verdict = (status: number, body: string, note = ""): CheckResult =>
        status === 404
            ? { name: EDGE_CHECK, ok: true, detail: `${url} answers 404 at the edge (${address}): no route serves it`, fix: "" }
            : {
                  name: EDGE_CHECK,
                  ok: false,
                  detail: `${url} answers ${status} at the edge (${address})${note}: the admin route is still served (${excerpt(body)})`,
                  fix: `find what serves it: kubectl get httproute -A | grep admin-token-issuer-proxy; helm -n api-keys list; NVIDIA's steps remove the release and the OpenBao grant`,
              };
    try {
        const res = await get(false);
        return verdict(res.status, res.body);
    } catch (err) {
        const code = err instanceof HttpError ? err.code : undefined;
        const reason = messageOf(err);
        if (code && CERTIFICATE_ERRORS.includes(code)) {
            // The routing answer, read past the certificate as NVIDIA's steps do with curl -k: a route still served fails.
            const routing = await get(true).catch(() => undefined);
            if (routing && routing.status !== 404) return verdict(routing.status, routing.body, " with certificate checks off");
            return inconclusive(
                `the edge's certificate for ${probe.host} was refused (${code})${routing ? "; read past it, the route answers 404" : ""}: the request never reached the Gateway with TLS checked, so this is not a pass`,
                `expected when the route's hostname has no certificate of its own; check the edge's certificate, and the routing with ${curl(address, "k")}`,
            );
        }
        return inconclusive(
            `${url} at ${address} could not be reached (${reason}): the request never reached the Gateway, so this is not a pass`,
            `check it from a machine that reaches the load balancer: ${curl(address)}`,
        );
    }
}
