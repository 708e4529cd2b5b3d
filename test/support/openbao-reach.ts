import type { OpenBaoReach } from "../../lib/openbao/access";

/** How the OpenBao providers under test reach the members: the control plane's cluster, the chart's root-token Secret. */
export const OPENBAO_REACH: OpenBaoReach = {
    reach: { kubeconfigSource: "control-plane" },
    namespace: "vault-system",
    statefulSet: "openbao-server",
    port: 8200,
    scheme: "http",
    tokenSource: "kubernetes-secret",
    tokenSecret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" },
};
