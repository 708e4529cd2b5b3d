import type { ControlPlaneRule } from "./rule";
import { routeHostnames } from "../model/derived-facts";
import { hostname } from "../model/grammar";

/**
 * The hostnames the routes chart serves are made from global.domain (`api-keys.`, `*.invocation.`
 * and others before it), and the NATS route's (`nats.`): a domain valid alone can make one longer
 * than DNS (and the Gateway API) allows.
 */
export const derivedHostnamesFitDns: ControlPlaneRule = (cp) => {
    const domain = cp.global.domain;
    const hosts = { ...routeHostnames(cp), nats: `nats.${domain}` };
    const longest = Object.entries(hosts)
        .filter(([, host]) => host.endsWith(domain))
        .map(([name, host]) => ({ name, host, problem: host.length > 253 ? `${host.length} characters` : hostname.check(host) }))
        .filter((h) => h.problem);
    if (longest.length === 0) return [];
    const prefix = Math.max(...Object.values(hosts).map((h) => (h.endsWith(domain) ? h.length - domain.length : 0)));
    return [
        {
            path: "global.domain",
            message: `makes hostnames DNS does not allow: ${longest.map((h) => `${h.name} ${h.host.slice(0, 40)}... (${h.problem})`).join("; ")}`,
            given: domain,
            allowed: `a domain of at most ${253 - prefix} characters (the longest name made from it adds ${prefix})`,
        },
    ];
};
