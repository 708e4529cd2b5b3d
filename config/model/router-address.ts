import { isIPv4, isIPv6 } from "node:net";

const DNS_ADDRESS = /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?))*:[0-9]{1,5}$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+)\]:([0-9]{1,5})$/;

/** The router address check of global.yaml.gotmpl: DNS-or-IPv4:port or [IPv6]:port, port 1-65535. */
export function validRouterAddress(address: string): boolean {
    const v6 = BRACKETED_IPV6.exec(address);
    if (v6) return isIPv6(v6[1]) && portInRange(v6[2]);
    if (!DNS_ADDRESS.test(address)) return false;
    const host = address.slice(0, address.lastIndexOf(":"));
    if (/^[0-9.]+$/.test(host) && !isIPv4(host)) return false;
    return portInRange(address.slice(address.lastIndexOf(":") + 1));
}

function portInRange(port: string): boolean {
    const n = Number(port);
    return Number.isInteger(n) && n >= 1 && n <= 65535;
}
