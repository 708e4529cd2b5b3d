import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { stopProcess, stopWithThisProcess } from "./cluster";
import { firstMigrations, JWT_PLUGIN, registerJwtPlugin, type BaoCall } from "./openbao-migrations";

/**
 * The server config NVIDIA's openbao chart gives its members (`openbao.server.ha.raft.config` of
 * deploy/helm/openbao/helm/values.yaml, copied by scripts/e2e/build-tools.sh into the upstream
 * files' `openbao/values.yaml`): `disable_standby_reads = true` among it, so standbys forward
 * every request to the active member, as in the bundle.
 */
export function openbaoChartConfig(upstreamDir: string): string {
    const file = path.join(upstreamDir, "openbao", "values.yaml");
    // The upstream openbao chart is a subchart there: its values sit under `openbao`.
    const values = parseYaml(fs.readFileSync(file, "utf8")) as { openbao?: { server?: { ha?: { raft?: { config?: unknown } } } } };
    const config = values.openbao?.server?.ha?.raft?.config;
    if (typeof config !== "string") throw new Error(`${file}: no openbao.server.ha.raft.config`);
    return config;
}

/**
 * The chart's config for one member on loopback. Only what cannot hold outside a pod changes:
 * the data path and the listener's addresses; the retry_join blocks name the pods' DNS names (the
 * members join explicitly here, as deploy.sh does); the kubernetes service registration needs an
 * in-cluster API; the plugin directory is this run's. The addresses the chart's StatefulSet gives
 * through the environment (api_addr, cluster_addr) are added, and disable_mlock (no IPC_LOCK
 * here). A chart whose config no longer has the lines replaced fails here, naming the line.
 */
export function memberConfig(chart: string, member: { name: string; host: string; data: string; pluginDir?: string }): string {
    let text = chart.replace(/^\s*retry_join\s*\{[^}]*\}\s*$/gm, "").replace(/^\s*service_registration\s+"kubernetes"\s*\{\s*\}\s*$/m, "");
    const replace = (pattern: RegExp, line: string, what: string) => {
        if (!pattern.test(text)) throw new Error(`the openbao chart's server config has no ${what} line`);
        text = text.replace(pattern, line);
    };
    replace(/^(\s*)path\s*=.*$/m, `$1path    = "${member.data}"\n$1node_id = "${member.name}"`, "storage path");
    replace(/^(\s*)address\s*=.*$/m, `$1address = "${member.host}:8200"`, "listener address");
    replace(/^(\s*)cluster_address\s*=.*$/m, `$1cluster_address = "${member.host}:8201"`, "listener cluster_address");
    replace(/^(\s*)plugin_directory\s*=.*$/m, member.pluginDir ? `$1plugin_directory = "${member.pluginDir}"` : "", "plugin_directory");
    return [
        text,
        `api_addr      = "http://${member.host}:8200"`,
        `cluster_addr  = "https://${member.host}:8201"`,
        `disable_mlock = true`,
        "",
    ].join("\n");
}

/** For the calls that wait on a Raft election (init, join, unseal), which may take up to twice the 5 s heartbeat timeout. */
const SLOW_CALL_MS = 60_000;

/**
 * A real OpenBao Raft cluster of `bao server` processes on loopback, one address a member
 * (127.0.0.<2+i>:8200, cluster port 8201), set up the way NVIDIA's openbao chart does it
 * (deploy/helm/openbao/helm/scripts/deploy.sh): the first member initialised with one unseal
 * key and unsealed, the others joined to it over Raft and unsealed with the same key. A member
 * stopped and started again comes back sealed, as a replaced pod does, until `unseal` runs.
 * With NVIDIA's JWT secrets plugin, the members' plugin directory holds it, as the chart's image
 * does, and `boot` registers and mounts it as the chart's post-install and migrations do.
 */
export class BaoCluster {
    readonly names: string[];
    rootToken = "";
    unsealKey = "";
    /** The plugin binary's SHA-256, as registered. */
    jwtPluginSha256 = "";
    /** Members whose process ended by itself (not stopped here), with how it ended; cleared when it starts again. */
    readonly ended = new Map<string, string>();
    private readonly procs = new Map<string, ChildProcess>();
    private readonly pluginDir: string;

    /**
     * `chartConfig`: the openbao chart's server config (openbaoChartConfig), which every member
     * runs with its loopback addresses.
     */
    constructor(
        private readonly bin: string,
        private readonly dir: string,
        private readonly chartConfig: string,
        members = 3,
        private readonly jwtPlugin?: string,
    ) {
        this.names = Array.from({ length: members }, (_, i) => `openbao-server-${i}`);
        this.pluginDir = path.join(dir, "plugins");
    }

    /** A member's loopback address (what its pod's port 8200 stands for). */
    host(name: string): string {
        return `127.0.0.${2 + this.names.indexOf(name)}`;
    }

    url(name: string): string {
        return `http://${this.host(name)}:8200`;
    }

    /** Starts every member, initialises the first, joins and unseals the rest; resolves once Raft has every voter. */
    async boot(): Promise<void> {
        if (this.jwtPlugin) {
            fs.mkdirSync(this.pluginDir, { recursive: true });
            fs.copyFileSync(this.jwtPlugin, path.join(this.pluginDir, JWT_PLUGIN));
            fs.chmodSync(path.join(this.pluginDir, JWT_PLUGIN), 0o755);
            this.jwtPluginSha256 = createHash("sha256").update(fs.readFileSync(this.jwtPlugin)).digest("hex");
        }
        for (const n of this.names) this.startProcess(n);
        const first = this.names[0];
        await this.until(first, async () => (await this.call(first, "GET", "sys/seal-status")).status === 200);
        // Init waits for the first member to elect itself, after Raft's heartbeat timeout: 5 to 10 s with OpenBao's
        // defaults (storage.raft logs HeartbeatTimeout:5000000000), so a 10 s request timeout failed it now and then.
        const init = await this.call(first, "PUT", "sys/init", { secret_shares: 1, secret_threshold: 1 }, undefined, SLOW_CALL_MS);
        if (init.status !== 200) throw new Error(`bao init: ${init.status} ${init.text}`);
        this.rootToken = init.body.root_token;
        this.unsealKey = init.body.keys_base64[0];
        await this.unseal(first);
        await this.until(first, async () => (await this.call(first, "GET", "sys/leader")).body?.is_self === true);
        for (const n of this.names.slice(1)) {
            await this.until(n, async () => (await this.call(n, "GET", "sys/seal-status")).status === 200);
            const join = await this.call(n, "PUT", "sys/storage/raft/join", { leader_api_addr: this.url(first) }, undefined, SLOW_CALL_MS);
            if (join.status !== 200 || join.body?.joined !== true) throw new Error(`${n}: raft join: ${join.status} ${join.text}`);
            await this.unseal(n);
        }
        await this.until(first, async () => {
            const res = await this.call(first, "GET", "sys/storage/raft/configuration", undefined, this.rootToken);
            const servers: { voter?: boolean }[] = res.body?.data?.config?.servers ?? [];
            return servers.length === this.names.length && servers.every((s) => s.voter);
        });
        if (this.jwtPlugin) {
            await registerJwtPlugin(this.root, this.jwtPluginSha256);
            await firstMigrations(this.root);
        }
    }

    /**
     * Puts another binary of the plugin where the members look for it (a new image's: the same
     * program with other bytes at its end); returns its SHA-256. Renamed into place, as the
     * running plugin processes keep the old file open.
     */
    replaceJwtPluginBinary(): string {
        const target = path.join(this.pluginDir, JWT_PLUGIN);
        const bytes = Buffer.concat([fs.readFileSync(target), Buffer.from(`\nrebuilt ${Date.now()}\n`)]);
        fs.writeFileSync(`${target}.new`, bytes, { mode: 0o755 });
        fs.renameSync(`${target}.new`, target);
        return createHash("sha256").update(bytes).digest("hex");
    }

    /** One call with the root token to the member that leads now (writes go there; a standby would forward them). */
    readonly root: BaoCall = async (method, apiPath, body) => {
        const leader = await this.leader();
        if (!leader) throw new Error("no OpenBao member leads");
        return this.call(leader, method, apiPath, body, this.rootToken);
    };

    /** Unseals a member with the cluster's key and waits until it says so. */
    async unseal(name: string): Promise<void> {
        const res = await this.call(name, "PUT", "sys/unseal", { key: this.unsealKey }, undefined, SLOW_CALL_MS);
        if (res.status !== 200) throw new Error(`${name}: unseal: ${res.status} ${res.text}`);
        await this.until(name, async () => (await this.call(name, "GET", "sys/seal-status")).body?.sealed === false);
    }

    /** Stops a member and starts it again on the same data: it comes back sealed. */
    async restart(name: string): Promise<void> {
        await this.stopProcess(name);
        this.startProcess(name);
        await this.until(name, async () => (await this.call(name, "GET", "sys/seal-status")).status === 200);
    }

    /** The last lines a member's process wrote. */
    logTail(name: string, lines = 15): string {
        return fs
            .readFileSync(path.join(this.dir, `${name}.log`), "utf8")
            .split("\n")
            .slice(-lines)
            .join("\n");
    }

    /** The member that leads now, by its own `sys/leader`. */
    async leader(): Promise<string | undefined> {
        for (const n of this.names) {
            const res = await this.call(n, "GET", "sys/leader").catch(() => undefined);
            if (res?.body?.is_self === true) return n;
        }
        return undefined;
    }

    async stop(): Promise<void> {
        for (const n of [...this.procs.keys()]) await this.stopProcess(n);
    }

    /** One call to a member's API (`path` under /v1). */
    call(
        name: string,
        method: string,
        apiPath: string,
        body?: unknown,
        token?: string,
        timeoutMs = 10_000,
    ): Promise<{ status: number; body: any; text: string }> {
        return new Promise((resolve, reject) => {
            const req = http.request(
                `${this.url(name)}/v1/${apiPath}`,
                {
                    method,
                    headers: { ...(token ? { "X-Vault-Token": token } : {}), "Content-Type": "application/json" },
                    timeout: timeoutMs,
                },
                (res) => {
                    const chunks: Buffer[] = [];
                    res.on("data", (c: Buffer) => chunks.push(c));
                    res.on("end", () => {
                        const text = Buffer.concat(chunks).toString("utf8");
                        let parsed: unknown;
                        try {
                            parsed = text ? JSON.parse(text) : undefined;
                        } catch {
                            parsed = undefined;
                        }
                        resolve({ status: res.statusCode ?? 0, body: parsed, text });
                    });
                },
            );
            req.on("timeout", () => req.destroy(new Error(`${name}: ${method} ${apiPath}: timeout`)));
            req.on("error", reject);
            req.end(body === undefined ? undefined : JSON.stringify(body));
        });
    }

    private startProcess(name: string): void {
        const host = this.host(name);
        const data = path.join(this.dir, name);
        fs.mkdirSync(data, { recursive: true });
        const config = path.join(this.dir, `${name}.hcl`);
        fs.writeFileSync(
            config,
            memberConfig(this.chartConfig, { name, host, data, ...(this.jwtPlugin ? { pluginDir: this.pluginDir } : {}) }),
        );
        const out = fs.openSync(path.join(this.dir, `${name}.log`), "a");
        const p = stopWithThisProcess(spawn(this.bin, ["server", `-config=${config}`], { stdio: ["ignore", out, out] }));
        fs.closeSync(out);
        this.ended.delete(name);
        this.procs.set(name, p);
        p.once("exit", (code, signal) => {
            if (this.procs.get(name) !== p) return;
            this.procs.delete(name);
            this.ended.set(name, code === null ? `signal ${signal}` : `exit code ${code}`);
        });
    }

    private async stopProcess(name: string): Promise<void> {
        const p = this.procs.get(name);
        this.procs.delete(name);
        await stopProcess(p);
    }

    private async until(name: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            if (await probe().catch(() => false)) return;
            if (Date.now() > deadline) throw new Error(`${name}: not ready after ${timeoutMs} ms; its log ends:\n${this.logTail(name)}`);
            await new Promise((r) => setTimeout(r, 200));
        }
    }
}
