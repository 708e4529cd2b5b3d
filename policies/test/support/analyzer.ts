// Runs the pack as the Pulumi CLI does, `policies/index.ts` in its own process serving the
// analyzer gRPC protocol, and talks to it with the engine's own messages.
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { credentials } from "@grpc/grpc-js";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import {
    AnalyzeRequest,
    AnalyzerProviderResource,
    AnalyzerResource,
    AnalyzerResourceOptions,
    AnalyzeStackRequest,
    EnforcementLevel,
    type AnalyzeResponse,
    type AnalyzerInfo,
} from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { TSX_NODE_ARGS } from "../../../scripts/lib/repo";
import { fixtureUrn, type FixtureResource } from "./args";

const PACK_DIR = path.resolve(__dirname, "..", "..");

export interface Served {
    readonly client: AnalyzerClient;
    readonly stop: () => void;
}

/** Starts the pack; resolves once it printed its port, as the CLI waits for. */
export function servePack(): Promise<Served> {
    // The pack reads its version from package.json in the working directory, as under the CLI.
    const child: ChildProcess = spawn(process.execPath, [...TSX_NODE_ARGS, "index.ts"], {
        cwd: PACK_DIR,
        stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`the pack exited with ${code}: ${stderr}`)));
        child.stdout?.once("data", (d: Buffer) => {
            const port = Number(d.toString().trim().split("\n")[0]);
            if (!Number.isInteger(port)) return reject(new Error(`no port from the pack: ${d.toString()} ${stderr}`));
            const client = new AnalyzerClient(`127.0.0.1:${port}`, credentials.createInsecure());
            child.removeAllListeners("exit");
            resolve({ client, stop: () => (client.close(), child.kill()) });
        });
    });
}

const struct = (value: Record<string, unknown>) => Struct.fromJavaScript(value as Record<string, JavaScriptValue>);

function provider(urn: string | undefined): AnalyzerProviderResource | undefined {
    if (!urn) return undefined;
    const [, , type = "", name = ""] = urn.split("::");
    return new AnalyzerProviderResource()
        .setUrn(urn)
        .setType(type.split("$").pop() ?? "")
        .setName(name)
        .setProperties(struct({}));
}

const options = (r: FixtureResource) => new AnalyzerResourceOptions().setParent(r.parent ?? "");

export function analyzeRequest(r: FixtureResource): AnalyzeRequest {
    return new AnalyzeRequest()
        .setType(r.type)
        .setName(r.name)
        .setUrn(fixtureUrn(r))
        .setProperties(struct(r.props))
        .setOptions(options(r))
        .setProvider(provider(r.provider));
}

export function analyzeStackRequest(resources: readonly FixtureResource[]): AnalyzeStackRequest {
    return new AnalyzeStackRequest().setResourcesList(
        resources.map((r) =>
            new AnalyzerResource()
                .setType(r.type)
                .setName(r.name)
                .setUrn(fixtureUrn(r))
                .setProperties(struct(r.props))
                .setOptions(options(r))
                .setProvider(provider(r.provider))
                .setParent(r.parent ?? "")
                .setDependenciesList([...(r.dependencies ?? [])]),
        ),
    );
}

export interface Diagnostic {
    readonly policy: string;
    readonly level: "advisory" | "mandatory" | "other";
    readonly message: string;
}

function diagnostics(response: AnalyzeResponse): Diagnostic[] {
    return response.getDiagnosticsList().map((d) => ({
        policy: d.getPolicyname(),
        level:
            d.getEnforcementlevel() === EnforcementLevel.MANDATORY
                ? "mandatory"
                : d.getEnforcementlevel() === EnforcementLevel.ADVISORY
                  ? "advisory"
                  : "other",
        message: d.getMessage(),
    }));
}

type Call<Req, Res> = (req: Req, cb: (err: Error | null, res: Res) => void) => unknown;
function call<Req, Res>(fn: Call<Req, Res>, req: Req): Promise<Res> {
    return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

export const analyze = async (s: Served, r: FixtureResource) => diagnostics(await call(s.client.analyze.bind(s.client), analyzeRequest(r)));
export const analyzeStack = async (s: Served, rs: readonly FixtureResource[]) =>
    diagnostics(await call(s.client.analyzeStack.bind(s.client), analyzeStackRequest(rs)));
export const analyzerInfo = (s: Served): Promise<AnalyzerInfo> => call(s.client.getAnalyzerInfo.bind(s.client), new Empty());
