import type { ReleaseRevision } from "../../lib/health/helm-releases";
import type { Claim, HelmFacts, ObjectFacts } from "./cluster";
import { kindOf, kubernetesId, reveal, stringInput, urnName, type PendingOperation, type StateEdit, type StateResource } from "./state";
import { KUBERNETES_STATE_KEYS } from "../../lib/contracts/pulumi-state";
import { HELM_ROLLBACK_DESCRIPTION } from "../../lib/contracts/helm";

/**
 * What recovery does with each pending operation an interrupted run left, decided from the
 * checkpoint and what the cluster holds. Pure: the tests give it both.
 */

/** What was looked up in the cluster for one operation. */
export type Facts =
    | { readonly kind: "helm"; readonly helm: HelmFacts }
    | { readonly kind: "object"; readonly object: ObjectFacts }
    /** Nothing to look up (a dynamic resource, a provider, a random value, an operation that only needs clearing). */
    | { readonly kind: "none" }
    /** The cluster could not be asked; recovery will not guess. */
    | { readonly kind: "unreachable"; readonly reason: string };

export type HelmAction =
    | { readonly kind: "rollback"; readonly name: string; readonly namespace: string; readonly revision: number }
    | { readonly kind: "uninstall"; readonly name: string; readonly namespace: string };

export interface Decision {
    readonly urn: string;
    /** The resource, as messages name it. */
    readonly what: string;
    readonly found: string;
    /** What recovery does (or, when it stops, what it leaves alone). */
    readonly will: string;
    /** A Helm operation first (with the helm CLI). */
    readonly helm?: HelmAction;
    readonly edit?: StateEdit;
    /** Read the resource with its provider afterwards (a targeted refresh). */
    readonly refresh: boolean;
    /** Set when recovery must not act: the exact steps for the user, in order. */
    readonly stop?: readonly string[];
    /** The stop is lifted by running again with --yes (what that does is in the steps). */
    readonly confirm?: boolean;
    /**
     * The pending operation must stay in the state until this command can resolve it (writing the
     * state with `pulumi stack import` drops every pending operation): nothing else is changed meanwhile.
     */
    readonly keep?: boolean;
}

export interface DecideInput {
    readonly op: PendingOperation;
    /** The resource as recorded before the operation began (updates and deletes). */
    readonly recorded?: StateResource;
    readonly facts: Facts;
    /** Release names the catalog says keep data on persistent volumes. */
    readonly dataReleases: ReadonlySet<string>;
    /** The stack, for the commands in the steps. */
    readonly stack: string;
    /** --yes: uninstall a release that holds data when its first install never finished and none of its volumes is bound. */
    readonly confirmed?: boolean;
    /** An earlier pending operation of the state has the same resource and type (runs killed one after another). */
    readonly repeated?: boolean;
}

const PENDING = ["pending-install", "pending-upgrade", "pending-rollback"];
/** Statuses of a revision that was live once: a rollback can return to it. */
const WAS_DEPLOYED = ["deployed", "superseded"];

export function decide(input: DecideInput): Decision {
    const { op, facts } = input;
    const urn = op.resource.urn;
    const what = describe(op.resource);
    const base = { urn, what, refresh: false };
    if (facts.kind === "unreachable") {
        return {
            ...base,
            found: `an interrupted ${verb(op.type)}; its cluster could not be asked (${facts.reason})`,
            will: "leaves it alone",
            keep: true,
            stop: [
                `Make the cluster reachable with the kubeconfig and context of the stack's kubernetes provider, then run npm run recover -- --stack ${input.stack} again.`,
            ],
        };
    }
    if (input.repeated) {
        return {
            ...base,
            found: `the same interrupted ${verb(op.type)} a second time (runs killed one after another)`,
            will: "clear this copy",
            edit: clear(urn),
        };
    }
    if (op.type !== "creating" && op.type !== "updating" && op.type !== "deleting") {
        return { ...base, found: `an interrupted ${op.type} (it changes nothing in the cluster)`, will: "clear it", edit: clear(urn) };
    }
    if (op.resource.custom === false) {
        // A component (nvcf:kubernetes:Namespaces, say) has nothing outside the state; the engine
        // writes and ends its pending operation at once, so only a kill in between leaves one.
        return {
            ...base,
            found: `an interrupted ${verb(op.type)} of a component (nothing outside Pulumi's state)`,
            will: "clear it; the next `pulumi up` registers it again",
            edit: clear(urn),
        };
    }
    const kind = kindOf(op.resource.type);
    const replacing = op.type === "creating" && input.recorded?.id ? input.recorded.id : undefined;
    if (replacing && (kind === "helm-release" || kind === "kubernetes-object") && sameObject(op.resource, replacing)) {
        // Pulumi keeps a pending create through later runs until it is resolved: the run after the kill created it again.
        return {
            ...base,
            found: `a pending create left over from an earlier run; a later run created it and recorded it (id ${replacing})`,
            will: "clear it (the resource is not touched)",
            edit: clear(urn),
        };
    }
    switch (kind) {
        case "helm-release":
            if (facts.kind !== "helm") throw new Error(`no Helm facts for ${urn}`);
            return { ...base, ...helmDecision(input, facts.helm, replacing) };
        case "kubernetes-object":
            if (op.type === "creating" && facts.kind !== "object") throw new Error(`no object facts for ${urn}`);
            return { ...base, ...objectDecision(input, facts.kind === "object" ? facts.object : undefined, replacing) };
        case "dynamic":
            return { ...base, ...dynamicDecision(op) };
        case "random":
            return {
                ...base,
                found: `an interrupted ${verb(op.type)}`,
                will:
                    op.type === "creating"
                        ? "clear it: the value existed only in the provider's memory and nothing used it yet (whatever needs it waits for it), so the next `pulumi up` generates it"
                        : "clear it; the next `pulumi up` runs it again",
                edit: clear(urn),
            };
        case "provider":
            return {
                ...base,
                found: `an interrupted ${verb(op.type)} of a provider (nothing outside Pulumi)`,
                will: "clear it",
                edit: clear(urn),
            };
        default:
            if (op.type === "creating") {
                return {
                    ...base,
                    found: "an interrupted create this command cannot look up",
                    will: "leaves it alone",
                    keep: true,
                    stop: [
                        `Look in the provider's console or API whether ${what} exists.`,
                        `If it exists: pulumi refresh --stack ${input.stack} --import-pending-creates '${urn}' --import-pending-creates <its id> (the flag before each of the two).`,
                        `If it does not: pulumi refresh --stack ${input.stack} --clear-pending-creates.`,
                        `Then npm run recover -- --stack ${input.stack} again.`,
                    ],
                };
            }
            return {
                ...base,
                found: `an interrupted ${verb(op.type)}`,
                will: "clear it and read the resource again with its provider",
                edit: clear(urn),
                refresh: true,
            };
    }
}

type Outcome = Omit<Decision, "urn" | "what" | "refresh"> & { readonly refresh?: boolean };

const clear = (urn: string): StateEdit => ({ kind: "clear", urn });

/** The create names the object (Helm release or Kubernetes object) the recorded resource's id names. */
function sameObject(resource: StateResource, id: string): boolean {
    if (kindOf(resource.type) === "helm-release") return id === `${stringInput(resource, "namespace")}/${stringInput(resource, "name")}`;
    const meta = reveal(resource.inputs?.metadata) as { name?: string; namespace?: string } | undefined;
    // The provider puts a namespaced object without a namespace into "default".
    return id === kubernetesId(meta?.namespace, meta?.name ?? "") || (!meta?.namespace && id === `default/${meta?.name ?? ""}`);
}

/**
 * A replacement created before the old one is deleted (Pulumi's default) that finished in the
 * cluster: recording it would need the old one marked for deletion as the engine does, which
 * this command does not write.
 */
function replacementStop(input: DecideInput, found: string, old: string, undo: string): Outcome {
    return {
        found: `an interrupted replacement: ${found}, and the run ended before Pulumi recorded it beside the old one (id ${old})`,
        will: "leaves it alone",
        stop: [
            `Remove the new one, which nothing of the stack records: ${undo}.`,
            `Then npm run recover -- --stack ${input.stack} again; the next \`pulumi up\` replaces it again.`,
        ],
    };
}

function verb(type: string): string {
    return { creating: "create", updating: "update", deleting: "delete" }[type] ?? type;
}

function describe(resource: StateResource): string {
    const name = urnName(resource.urn);
    const kind = kindOf(resource.type);
    if (kind === "helm-release") return `Helm release ${stringInput(resource, "namespace")}/${stringInput(resource, "name")} (${name})`;
    if (kind === "kubernetes-object") {
        const meta = reveal(resource.inputs?.metadata) as { name?: string; namespace?: string } | undefined;
        const kindName = resource.type.slice(resource.type.lastIndexOf(":") + 1);
        return `${kindName} ${kubernetesId(meta?.namespace, meta?.name ?? "?")} (${name})`;
    }
    if (kind === "dynamic") return `${resource.type.replace(/^pulumi-nodejs:dynamic\/?/, "")} ${name}`;
    return `${resource.type} ${name}`;
}

function helmDecision(input: DecideInput, facts: HelmFacts, replacing: string | undefined): Outcome {
    const { op, stack } = input;
    const urn = op.resource.urn;
    const name = stringInput(op.resource, "name") ?? "";
    const namespace = stringInput(op.resource, "namespace") ?? "";
    const history = facts.history;
    const newest = history[history.length - 1] as ReleaseRevision | undefined;
    const helmCmd = `helm -n ${namespace}`;
    const look = `${helmCmd} history ${name}`;

    if (op.type === "deleting") {
        if (!newest)
            return {
                found: "Helm uninstalled it, and the run ended before Pulumi recorded that",
                will: "clear the operation; the refresh drops it from the stack",
                edit: clear(urn),
                refresh: true,
            };
        return {
            found: `an interrupted uninstall (revision ${newest.revision} is ${newest.status})`,
            will: "clear the operation and read the release again; the next `pulumi destroy` (or `up`) uninstalls it, and Helm finishes an uninstall it had begun",
            edit: clear(urn),
            refresh: true,
        };
    }

    if (op.type === "creating") {
        if (!newest)
            return {
                found: "Helm had not installed it",
                will: "clear the pending create; the next `pulumi up` installs it",
                edit: clear(urn),
                refresh: false,
            };
        if (history.length > 1 || newest.revision !== 1) {
            return {
                found: `a release of that name with ${history.length} revision(s) (newest ${newest.revision}, ${newest.status}): it was there before this run's install, so it is not this stack's`,
                will: "leaves it alone",
                stop: [
                    `Look at it: ${look}.`,
                    `If it is not needed: ${helmCmd} uninstall ${name}; to keep it instead, import it: pulumi import --stack ${stack} kubernetes:helm.sh/v3:Release ${urnName(urn)} ${namespace}/${name}.`,
                    `Then npm run recover -- --stack ${stack} again.`,
                ],
            };
        }
        const wanted = stringInput(op.resource, "version");
        const bare = (v: string) => v.replace(/^v/, "");
        if (wanted && newest.chartVersion && bare(newest.chartVersion) !== bare(wanted) && !/[\^~*<>=|x\s]/i.test(wanted)) {
            return {
                found: `a release of that name with chart ${newest.chart} ${newest.chartVersion}, while this stack installs ${wanted}: not this run's install`,
                will: "leaves it alone",
                stop: [
                    `Look at it: ${look}.`,
                    `Uninstall it if it is not needed (${helmCmd} uninstall ${name}), then npm run recover -- --stack ${stack} again.`,
                ],
            };
        }
        if (newest.status === "deployed") {
            if (replacing)
                return replacementStop(
                    input,
                    `Helm installed the new release ${namespace}/${name} (revision 1, deployed)`,
                    replacing,
                    `${helmCmd} uninstall ${name}`,
                );
            return {
                found: `Helm finished the install (revision 1, deployed), and the run ended before Pulumi recorded it`,
                will: `record it in the stack as ${urnName(urn)}, with its id ${namespace}/${name} (nothing is reinstalled; its revision history stays)`,
                edit: { kind: "adopt", urn, id: `${namespace}/${name}` },
                refresh: true,
            };
        }
        if (newest.status === "pending-install" || newest.status === "failed") {
            const state =
                newest.status === "failed"
                    ? "failed (its first install never completed)"
                    : "stuck pending-install (its first install was interrupted)";
            const data = dataReasons(input, facts, name);
            if (data.length > 0) {
                const bound = facts.claims.filter((c) => c.bound);
                if (bound.length > 0) {
                    return {
                        found: `revision 1 is ${state}, and it holds data: ${data.join("; ")}`,
                        will: "leaves it alone: a release whose volumes are bound is never uninstalled by this command",
                        stop: [
                            `Make sure no pulumi or helm command still runs on this stack.`,
                            `Look at it: ${look}; kubectl -n ${namespace} get pvc,pods.`,
                            `Its first install never finished, so the hooks that run after an install (initialisation, migrations) may not have run; an upgrade does not run them.`,
                            `If nothing on those volumes must be kept: ${helmCmd} uninstall ${name}, then kubectl -n ${namespace} delete pvc ${facts.claims.map((c) => c.name).join(" ")}.`,
                            `If something must be kept: back the volumes up first (their PersistentVolumes: kubectl -n ${namespace} get pvc -o wide), then do the same.`,
                            `Then npm run recover -- --stack ${stack} again, and pulumi up.`,
                        ],
                    };
                }
                const fresh = `the next \`pulumi up\` installs it afresh, and the secrets its chart generates at install (passwords, keys) will be new`;
                const holds = `${data.join("; ")}, so nothing it wrote to a volume was kept`;
                if (!input.confirmed) {
                    return {
                        found: `revision 1 is ${state}; it is a release that holds data (${holds})`,
                        will: "leaves it alone until you confirm with --yes",
                        confirm: true,
                        keep: true,
                        stop: [
                            `npm run recover -- --stack ${stack} --yes uninstalls it (${helmCmd} uninstall ${name}) like a release without data and clears its pending create; ${fresh}.`,
                        ],
                    };
                }
                return {
                    found: `revision 1 is ${state}; it is a release that holds data (${holds})`,
                    will: `uninstall it (${helmCmd} uninstall ${name}, confirmed with --yes) and clear the pending create; ${fresh}`,
                    helm: { kind: "uninstall", name, namespace },
                    edit: clear(urn),
                    refresh: false,
                };
            }
            return {
                found: `revision 1 is ${state}; it never had a deployed revision and holds no data`,
                will: `uninstall it (${helmCmd} uninstall ${name}) and clear the pending create; the next \`pulumi up\` installs it afresh`,
                helm: { kind: "uninstall", name, namespace },
                edit: clear(urn),
                refresh: false,
            };
        }
        return unexpected(input, newest, look);
    }

    // updating
    const recordedRevision = Number((reveal(input.recorded?.outputs?.status) as { revision?: unknown } | undefined)?.revision);
    if (!newest) {
        return {
            found: "the release is gone from the cluster",
            will: "clear the operation; the refresh drops it from the stack, and the next `pulumi up` installs it",
            edit: clear(urn),
            refresh: true,
        };
    }
    if (newest.status === "deployed") {
        if (newest.description?.startsWith(HELM_ROLLBACK_DESCRIPTION)) {
            return {
                found: `Helm rolled it back (revision ${newest.revision}, "${newest.description}"): the upgrade did not finish`,
                will: "clear the operation and read it again; the next `pulumi up` upgrades it",
                edit: clear(urn),
                refresh: true,
            };
        }
        if (Number.isInteger(recordedRevision) && newest.revision > recordedRevision) {
            return {
                found: `Helm finished the upgrade (revision ${newest.revision}, deployed; the stack recorded ${recordedRevision}), and the run ended before Pulumi recorded it`,
                will: "record the inputs it was upgraded with (nothing is reinstalled) and read it again",
                edit: { kind: "record", urn },
                refresh: true,
            };
        }
        return {
            found: `the upgrade never reached Helm (revision ${newest.revision} is deployed)`,
            will: "clear the operation; the next `pulumi up` upgrades it",
            edit: clear(urn),
            refresh: true,
        };
    }
    if (PENDING.includes(newest.status)) {
        const previous = [...history].reverse().find((r) => r.revision < newest.revision && WAS_DEPLOYED.includes(r.status));
        if (!previous) return unexpected(input, newest, look);
        return {
            found: `revision ${newest.revision} is stuck ${newest.status} (the upgrade was interrupted)`,
            will: `roll it back to revision ${previous.revision} (${helmCmd} rollback ${name} ${previous.revision}), clear the operation and read it again; the next \`pulumi up\` upgrades it`,
            helm: { kind: "rollback", name, namespace, revision: previous.revision },
            edit: clear(urn),
            refresh: true,
        };
    }
    if (newest.status === "failed") {
        return {
            found: `revision ${newest.revision} failed`,
            will: "clear the operation and read it again; the next `pulumi up` upgrades it (Helm upgrades a failed release from its last deployed revision)",
            edit: clear(urn),
            refresh: true,
        };
    }
    return unexpected(input, newest, look);
}

/** Why a release counts as holding data, its claims last; empty when it does not. */
function dataReasons(input: DecideInput, facts: HelmFacts, name: string): string[] {
    const reasons: string[] = [];
    if (input.dataReleases.has(name)) reasons.push("the catalog marks it as keeping data");
    if (facts.claims.length === 0 && facts.declaresVolumes) reasons.push("its chart declares persistent volumes");
    if (reasons.length > 0 || facts.claims.length > 0) reasons.push(describeClaims(facts.claims, facts.history[0]?.recordedAt));
    return reasons;
}

/** Each claim, bound or not and made before or during the install that began at `installedAt` (the cluster's clock). */
function describeClaims(claims: readonly Claim[], installedAt: string | undefined): string {
    if (claims.length === 0) return "no PersistentVolumeClaim of it exists";
    const when = (c: Claim) => {
        if (!c.createdAt || !installedAt) return "";
        // Both are the API server's creationTimestamps, to the second: the same second counts as during.
        return Date.parse(c.createdAt) < Date.parse(installedAt) ? ", made before this install" : ", made during this install";
    };
    return `PersistentVolumeClaims ${claims.map((c) => `${c.name} (${c.bound ? "bound to a volume" : "not bound to any volume"}${when(c)})`).join(", ")}`;
}

function unexpected(input: DecideInput, newest: ReleaseRevision, look: string): Outcome {
    return {
        found: `an interrupted ${verb(input.op.type)}, and revision ${newest.revision} is ${newest.status}, which this command does not repair`,
        will: "leaves it alone",
        stop: [
            `Look at it: ${look}.`,
            `Bring it to a deployed revision, or uninstall it, with helm; then npm run recover -- --stack ${input.stack} again.`,
        ],
    };
}

/** `facts` are looked up for a create only: an update or a delete is read again by its provider anyway. */
function objectDecision(input: DecideInput, facts: ObjectFacts | undefined, replacing: string | undefined): Outcome {
    const { op, stack } = input;
    const urn = op.resource.urn;
    if (op.type !== "creating" || !facts) {
        return {
            found: `an interrupted ${verb(op.type)}`,
            will: `clear the operation and read the object again; the next \`pulumi ${op.type === "deleting" ? "destroy" : "up"}\` applies it`,
            edit: clear(urn),
            refresh: true,
        };
    }
    if (!facts.served)
        return {
            found: "its kind is not served by the cluster (yet), so it was not created",
            will: "clear the pending create",
            edit: clear(urn),
            refresh: false,
        };
    if (!facts.exists)
        return {
            found: "it was not created",
            will: "clear the pending create; the next `pulumi up` creates it",
            edit: clear(urn),
            refresh: false,
        };
    const meta = reveal(op.resource.inputs?.metadata) as { name?: string; namespace?: string } | undefined;
    const name = meta?.name ?? "";
    const namespace = facts.namespaced ? (meta?.namespace ?? "default") : undefined;
    const id = kubernetesId(namespace, name);
    if (!facts.fieldManager) {
        return {
            found: "an object of that name exists, but the kubernetes provider never applied it (someone else made it)",
            will: "leaves it alone",
            stop: [
                `Look at it: kubectl get ${String(reveal(op.resource.inputs?.kind) ?? "").toLowerCase()} ${name}${namespace ? ` -n ${namespace}` : ""} -o yaml.`,
                `Delete it if the stack should own it afresh, or import it: pulumi import --stack ${stack} ${op.resource.type} ${urnName(urn)} ${id}.`,
                `Then npm run recover -- --stack ${stack} again.`,
            ],
        };
    }
    if (replacing) {
        const kindName = String(reveal(op.resource.inputs?.kind) ?? "").toLowerCase();
        return replacementStop(
            input,
            `the new ${kindName} ${id} was created`,
            replacing,
            `kubectl delete ${kindName} ${name}${namespace ? ` -n ${namespace}` : ""}`,
        );
    }
    return {
        found: "it was created, and the run ended before Pulumi recorded it",
        will: `record it in the stack with its id ${id}`,
        edit: {
            kind: "adopt",
            urn,
            id,
            outputs: {
                [KUBERNETES_STATE_KEYS.fieldManager]: facts.fieldManager,
                [KUBERNETES_STATE_KEYS.initialApiVersion]: reveal(op.resource.inputs?.apiVersion),
            },
        },
        refresh: true,
    };
}

/** The program's dynamic resources: every operation of theirs is safe to run again. */
function dynamicDecision(op: PendingOperation): Outcome {
    const urn = op.resource.urn;
    const why: Record<string, string> = {
        ClusterRegistration: "its create adopts a registration ICMS already holds, its delete accepts one already gone",
        OpenBaoGrantRevocation: "its deletions count an absent object as done",
        NvcaTeardown: "its deletions wait for what is already gone",
        Preflight: "it only reads",
        HealthGate: "it only reads",
    };
    const type = op.resource.type.slice(op.resource.type.lastIndexOf(":") + 1);
    return {
        found: `an interrupted ${verb(op.type)}`,
        will: `clear it; the next \`pulumi ${op.type === "deleting" ? "destroy" : "up"}\` runs it again (${why[type] ?? "it is safe to run again"})`,
        edit: clear(urn),
        refresh: false,
    };
}
