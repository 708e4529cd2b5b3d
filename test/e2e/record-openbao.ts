/**
 * `npm run record:openbao`: records the answers of a real OpenBao (the `bao` 2.5.5 and NVIDIA's JWT
 * plugin that scripts/e2e/build-tools.sh builds) to every call the program makes, into
 * test/fixtures/openbao-2.5.5.json. The in-process fakes answer the same shapes and statuses;
 * test/openbao-answers.test.ts holds them to this recording. Run it again after a version change.
 *
 * Usage: npm run record:openbao [-- --out <file>]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ADMIN_ISSUER_GRANT_PATHS, JWT_PLUGIN, OPENBAO_API, SIDECAR_PULL_SECRET } from "../../lib/openbao/contract";
import { enableJwtAuth, migration10, mountKvV2, NVCF_API_JWT_MOUNT, registerJwtPlugin } from "./openbao-migrations";
import { findTools } from "../../scripts/e2e/tools";
import { wantsHelp } from "../../scripts/lib/cli";

export const RECORDING = path.resolve(__dirname, "..", "..", "test", "fixtures", "openbao-2.5.5.json");

export interface RecordedAnswer {
    readonly request: string;
    readonly status: number;
    readonly body: unknown;
}

async function record(out: string): Promise<void> {
    const { tools, missing } = findTools();
    if (!tools) throw new Error(`record:openbao needs bao and the JWT plugin: ${missing}`);
    // Loaded here, not for --help: the real cluster's module loads the Kubernetes client.
    const { BaoCluster, openbaoChartConfig } = await import("./real-openbao");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-record-openbao-"));
    const bao = new BaoCluster(tools.bao, dir, openbaoChartConfig(tools.crds), 3, tools.jwtPlugin);
    const answers: Record<string, RecordedAnswer> = {};
    try {
        await bao.boot();
        const leader = (await bao.leader())!;
        const standby = bao.names.find((n) => n !== leader)!;
        const take = async (name: string, member: string, method: string, apiPath: string, token?: string, body?: unknown) => {
            const res = await bao.call(member, method, apiPath, body, token);
            answers[name] = {
                request: `${method} /v1/${apiPath} (${member === leader ? "active" : "standby"})`,
                status: res.status,
                body: res.body,
            };
        };
        const root = bao.rootToken;
        await take("sealStatus", leader, "GET", OPENBAO_API.sealStatus);
        await take("health.active", leader, "GET", OPENBAO_API.health);
        await take("health.standby", standby, "GET", OPENBAO_API.health);
        await take("health.standbyok", standby, "GET", `${OPENBAO_API.health}?standbyok=true`);
        await take("leader.active", leader, "GET", OPENBAO_API.leader);
        await take("leader.standby", standby, "GET", OPENBAO_API.leader);
        await take("raftConfiguration", leader, "GET", OPENBAO_API.raftConfiguration, root);
        await take("permissionDenied", leader, "GET", OPENBAO_API.mounts);
        await take("mounts", leader, "GET", OPENBAO_API.mounts, root);
        await registerJwtPlugin(bao.root, bao.jwtPluginSha256, "v1.4.1");
        await take("pluginCatalog", leader, "GET", OPENBAO_API.pluginCatalog, root);
        await take("pluginCatalogEntry.unversioned", leader, "GET", `${OPENBAO_API.pluginCatalog}/secret/${JWT_PLUGIN}`, root);
        await take("pluginCatalogEntry.versioned", leader, "GET", `${OPENBAO_API.pluginCatalog}/secret/${JWT_PLUGIN}?version=v1.4.1`, root);
        // A list with nothing in it: a new JWT auth mount, no role yet.
        await enableJwtAuth(bao.root, "empty");
        await take("list.empty", leader, "GET", "auth/empty/role?list=true", root);
        await migration10(bao.root);
        await take("list.authRoles", leader, "GET", "auth/jwt/role?list=true", root);
        await take("list.policies", leader, "GET", `${OPENBAO_API.aclPolicies}?list=true`, root);
        await take("list.secretRoles", leader, "GET", `${NVCF_API_JWT_MOUNT}/roles?list=true`, root);
        await take("delete", leader, "DELETE", ADMIN_ISSUER_GRANT_PATHS.authRole, root);
        await take("delete.absent", leader, "DELETE", ADMIN_ISSUER_GRANT_PATHS.authRole, root);
        await take("read.absent", leader, "GET", ADMIN_ISSUER_GRANT_PATHS.authRole, root);
        await take("unmounted", leader, "GET", "services/none/jwt/roles?list=true", root);
        // Migration 09's kv-v2 mount and its write_secrets_kv (`bao kv put`): the sidecar credential's calls.
        const kv = SIDECAR_PULL_SECRET.nvcfApi;
        await mountKvV2(bao.root, kv.mount, kv.key);
        await take("kv.absent", leader, "GET", `${kv.mount}/data/${kv.key}`, root);
        await take("kv.write", leader, "POST", `${kv.mount}/data/${kv.key}`, root, { data: { secret: "JG9hdXRodG9rZW46a2V5" } });
        await take("kv.read", leader, "GET", `${kv.mount}/data/${kv.key}`, root);
        // The MEK rotation's check-and-set on a version that moved on, and its mark in the custom metadata.
        await take("kv.casMismatch", leader, "POST", `${kv.mount}/data/${kv.key}`, root, { options: { cas: 0 }, data: { secret: "eA==" } });
        await take("kv.metadataWrite", leader, "POST", `${kv.mount}/metadata/${kv.key}`, root, { custom_metadata: { mark: "1" } });
        await take("kv.readWithMetadata", leader, "GET", `${kv.mount}/data/${kv.key}`, root);
        await take("stepDown", standby, "PUT", OPENBAO_API.stepDown, root);
        await bao.restart(standby);
        await take("sealStatus.sealed", standby, "GET", OPENBAO_API.sealStatus);
        await take("health.sealed", standby, "GET", OPENBAO_API.health);
        await take("leader.sealed", standby, "GET", OPENBAO_API.leader);
        await take("sealed", standby, "GET", OPENBAO_API.mounts, root);
    } finally {
        await bao.stop();
        fs.rmSync(dir, { recursive: true, force: true });
    }
    fs.writeFileSync(
        out,
        JSON.stringify(
            { recorded: `bao ${process.env.E2E_OPENBAO_VERSION ?? "2.5.5"}, three Raft members, NVIDIA's JWT plugin`, answers },
            null,
            2,
        ) + "\n",
    );
    console.log(`recorded ${Object.keys(answers).length} answers into ${out}`);
}

if (require.main === module) {
    const argv = process.argv.slice(2);
    if (wantsHelp(argv)) {
        console.log(
            "usage: npm run record:openbao [-- --out <file>]\n\nRecords a real OpenBao's answers for the fakes (scripts/e2e/build-tools.sh builds bao).\nExit: 0 recorded, 1 failed.",
        );
    } else {
        const i = argv.indexOf("--out");
        record(i >= 0 ? argv[i + 1] : RECORDING).catch((err) => {
            console.error(`record:openbao: ${err instanceof Error ? err.message : String(err)}`);
            process.exitCode = 1;
        });
    }
}
