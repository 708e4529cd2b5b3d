/**
 * `npm run recover`'s decisions, one per kind of interrupted operation, and the checkpoint edits
 * that carry them out: pure functions over a checkpoint and what the cluster holds.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReleaseRevision } from "../lib/health/helm-releases";
import type { HelmFacts, ObjectFacts } from "../scripts/recover/cluster";
import { decide, type DecideInput, type Facts } from "../scripts/recover/plan";
import {
    applyEdits,
    kindOf,
    providerOf,
    reveal,
    unreadResources,
    type PendingOperation,
    type StateResource,
} from "../scripts/recover/state";
import { helmRelease, object, op, secret, URN } from "./support/recover-fixtures";
import { PENDING_OPERATION_TYPES } from "../lib/contracts/pulumi-state";

const rev = (revision: number, status: string, chartVersion = "0.20.1"): ReleaseRevision => ({
    name: "cassandra",
    namespace: "cassandra-system",
    revision,
    chart: "helm-nvcf-cassandra",
    chartVersion,
    status,
    manifest: "",
    hooks: [],
});
const helmFacts = (history: ReleaseRevision[], more: Partial<HelmFacts> = {}): Facts => ({
    kind: "helm",
    helm: { history, claims: [], declaresVolumes: false, ...more },
});
const objectFacts = (facts: Partial<ObjectFacts>): Facts => ({
    kind: "object",
    object: { served: true, namespaced: true, exists: true, ...facts },
});

function run(input: Partial<DecideInput> & { op: PendingOperation; facts: Facts }) {
    return decide({ dataReleases: new Set(), stack: "dev", ...input });
}

describe("recover: a Helm release whose install was interrupted", () => {
    const creating = op("creating", helmRelease("nats", "nats-system"));

    it("not installed by Helm: the pending create is cleared and nothing else", () => {
        const d = run({ op: creating, facts: helmFacts([]) });
        assert.deepEqual(d.edit, { kind: "clear", urn: creating.resource.urn });
        assert.equal(d.helm, undefined);
        assert.equal(d.refresh, false);
        assert.equal(d.stop, undefined);
    });

    it("deployed by Helm but not recorded: adopted under its own name with id <namespace>/<name>, then read; never reinstalled", () => {
        const d = run({ op: creating, facts: helmFacts([rev(1, "deployed")]) });
        assert.deepEqual(d.edit, { kind: "adopt", urn: creating.resource.urn, id: "nats-system/nats" });
        assert.equal(d.helm, undefined, "no Helm operation");
        assert.equal(d.refresh, true);
        assert.match(d.found, /Helm finished the install/);
        assert.match(d.will, /nothing is reinstalled; its revision history stays/);
    });

    it("stuck pending-install, no data: uninstalled with helm, the create cleared so up installs it afresh", () => {
        const d = run({ op: creating, facts: helmFacts([rev(1, "pending-install")]) });
        assert.deepEqual(d.helm, { kind: "uninstall", name: "nats", namespace: "nats-system" });
        assert.deepEqual(d.edit, { kind: "clear", urn: creating.resource.urn });
        assert.equal(d.stop, undefined);
    });

    it("a failed first install without data is uninstalled too (an upgrade would never run its install hooks)", () => {
        const d = run({ op: creating, facts: helmFacts([rev(1, "failed")]) });
        assert.equal(d.helm?.kind, "uninstall");
    });

    const claim = (name: string, bound: boolean, createdAt?: string) => ({ name, bound, ...(createdAt ? { createdAt } : {}) });
    const begun = (status: string) => ({ ...rev(1, status), recordedAt: "2026-12-03T10:00:05Z" });

    it("a volume of it is bound: never uninstalled, even with --yes; stops with the steps naming every claim", () => {
        for (const confirmed of [false, true]) {
            const d = run({
                op: creating,
                confirmed,
                facts: helmFacts([begun("pending-install")], {
                    claims: [claim("data-nats-0", true, "2026-12-03T10:00:09Z"), claim("data-nats-1", false, "2026-12-03T10:00:09Z")],
                }),
            });
            assert.equal(d.helm, undefined);
            assert.equal(d.edit, undefined);
            assert.equal(d.confirm, undefined, "--yes does not lift it");
            const steps = d.stop!.join("\n");
            assert.match(
                d.found,
                /holds data: PersistentVolumeClaims data-nats-0 \(bound to a volume, made during this install\), data-nats-1 \(not bound to any volume, made during this install\)/,
            );
            assert.match(steps, /helm -n nats-system history nats/);
            assert.match(steps, /kubectl -n nats-system delete pvc data-nats-0 data-nats-1/);
            assert.match(steps, /npm run recover -- --stack dev again, and pulumi up/);
        }
    });

    it("a bound claim made before this install (an earlier installation's volume) is told apart", () => {
        const d = run({
            op: creating,
            facts: helmFacts([begun("pending-install")], { claims: [claim("data-nats-0", true, "2026-12-01T08:00:00Z")] }),
        });
        assert.match(d.found, /data-nats-0 \(bound to a volume, made before this install\)/);
        assert.ok(d.stop);
    });

    it("holds data but no volume is bound: left until --yes, which uninstalls it and says its generated secrets will be new", () => {
        const cassandra = op("creating", helmRelease("cassandra", "cassandra-system"));
        const dataReleases = new Set(["cassandra", "openbao-server"]);
        for (const facts of [
            helmFacts([begun("pending-install")]),
            helmFacts([begun("failed")], { declaresVolumes: true, claims: [claim("data-cassandra-0", false, "2026-12-03T10:00:06Z")] }),
        ]) {
            const asked = run({ op: cassandra, facts, dataReleases });
            assert.equal(asked.helm, undefined);
            assert.equal(asked.edit, undefined);
            assert.equal(asked.confirm, true);
            assert.match(
                asked.found,
                /it is a release that holds data \(the catalog marks it as keeping data; .*so nothing it wrote to a volume was kept\)/,
            );
            assert.match(asked.will, /until you confirm with --yes/);
            assert.match(
                asked.stop!.join(" "),
                /npm run recover -- --stack dev --yes uninstalls it \(helm -n cassandra-system uninstall cassandra\).*the secrets its chart generates at install \(passwords, keys\) will be new/,
            );

            const confirmed = run({ op: cassandra, facts, dataReleases, confirmed: true });
            assert.equal(confirmed.stop, undefined);
            assert.deepEqual(confirmed.helm, { kind: "uninstall", name: "cassandra", namespace: "cassandra-system" });
            assert.deepEqual(confirmed.edit, { kind: "clear", urn: cassandra.resource.urn });
            assert.match(confirmed.will, /confirmed with --yes.*will be new/);
        }
        const none = run({ op: cassandra, facts: helmFacts([begun("pending-install")]), dataReleases });
        assert.match(none.found, /no PersistentVolumeClaim of it exists/);
        assert.ok(run({ op: creating, facts: helmFacts([rev(1, "pending-install")], { declaresVolumes: true }) }).confirm);
    });

    it("a release with history from before this run is not this stack's: it stops", () => {
        const d = run({ op: creating, facts: helmFacts([rev(1, "superseded"), rev(2, "deployed")]) });
        assert.ok(d.stop);
        assert.match(d.found, /not this stack's/);
        assert.match(d.stop!.join(" "), /pulumi import --stack dev kubernetes:helm.sh\/v3:Release control-plane-nats nats-system\/nats/);
    });

    it("a deployed release of another chart version is not this run's install: it stops", () => {
        const d = run({ op: creating, facts: helmFacts([rev(1, "deployed", "9.9.9")]) });
        assert.ok(d.stop);
        assert.equal(d.edit, undefined);
    });

    it("a cluster that cannot be asked: it stops and guesses nothing, and its operation must stay in the state", () => {
        const d = run({ op: creating, facts: { kind: "unreachable", reason: "connect ECONNREFUSED" } });
        assert.ok(d.stop);
        assert.equal(d.keep, true);
        assert.match(d.found, /ECONNREFUSED/);
        assert.equal(d.edit, undefined);
    });
});

describe("recover: a pending create beside a recorded resource of the same name", () => {
    const release = helmRelease("nats", "nats-system");
    const recorded = { ...release, id: "nats-system/nats", outputs: { status: { revision: 1 } } };

    it("the same release, created and recorded by a later run: the left-over create is cleared, the release untouched", () => {
        // Whatever Helm holds: the facts of a recorded, deployed release would otherwise read as "finished, not recorded".
        const d = run({ op: op("creating", release), recorded, facts: helmFacts([rev(1, "deployed")]) });
        assert.deepEqual(d.edit, { kind: "clear", urn: release.urn });
        assert.equal(d.helm, undefined);
        assert.equal(d.refresh, false);
        assert.match(d.found, /left over from an earlier run; a later run created it and recorded it \(id nats-system\/nats\)/);
        const ns = object("Namespace", "nvcf");
        const obj = run({ op: op("creating", ns), recorded: { ...ns, id: "nvcf" }, facts: objectFacts({ namespaced: false }) });
        assert.deepEqual(obj.edit, { kind: "clear", urn: ns.urn });
        const cm = object("ConfigMap", "receipt");
        assert.equal(
            run({ op: op("creating", cm), recorded: { ...cm, id: "default/receipt" }, facts: objectFacts({}) }).edit?.kind,
            "clear",
        );
    });

    it("a replacement created before the old one is deleted (another name): recorded never, stopped when it finished in the cluster", () => {
        const moved = { ...release, inputs: { ...release.inputs, namespace: "nats-new" } };
        const finished = run({ op: op("creating", moved), recorded, facts: helmFacts([{ ...rev(1, "deployed"), namespace: "nats-new" }]) });
        assert.equal(finished.edit, undefined, "not adopted beside the old one");
        assert.match(
            finished.found,
            /an interrupted replacement: Helm installed the new release nats-new\/nats .*beside the old one \(id nats-system\/nats\)/,
        );
        assert.match(finished.stop!.join(" "), /helm -n nats-new uninstall nats/);
        assert.deepEqual(run({ op: op("creating", moved), recorded, facts: helmFacts([]) }).edit, { kind: "clear", urn: release.urn });
        assert.equal(
            run({ op: op("creating", moved), recorded, facts: helmFacts([rev(1, "pending-install")]) }).helm?.kind,
            "uninstall",
            "a replacement stuck pending-install without data is uninstalled as any first install",
        );
        const ds = object("DaemonSet", "node-inotify-tuner", "kube-system", "apps/v1");
        const objStop = run({
            op: op("creating", ds),
            recorded: { ...ds, id: "kube-system/node-inotify-tuner-old" },
            facts: objectFacts({ fieldManager: "pulumi-kubernetes-1" }),
        });
        assert.equal(objStop.edit, undefined);
        assert.match(objStop.stop!.join(" "), /kubectl delete daemonset node-inotify-tuner -n kube-system/);
    });

    it("the same operation written twice (runs killed one after another): the second copy is cleared without a look", () => {
        const d = run({ op: op("creating", release), repeated: true, facts: { kind: "none" } });
        assert.deepEqual(d.edit, { kind: "clear", urn: release.urn });
        assert.match(d.found, /a second time/);
    });
});

describe("recover: a Helm release whose upgrade was interrupted", () => {
    const recorded = { ...helmRelease("nats", "nats-system"), id: "nats-system/nats", outputs: { status: { revision: 2 } } };
    const updating = op("updating", { ...recorded, inputs: { ...recorded.inputs, version: "1.2.4" } });

    it("Helm finished it (a newer deployed revision): the new inputs are recorded and it is read again", () => {
        const d = run({ op: updating, recorded, facts: helmFacts([rev(1, "superseded"), rev(2, "superseded"), rev(3, "deployed")]) });
        assert.deepEqual(d.edit, { kind: "record", urn: updating.resource.urn });
        assert.equal(d.refresh, true);
        assert.equal(d.helm, undefined);
    });

    it("rolled back by an earlier recover whose state was not written: cleared and read, never recorded as finished", () => {
        const rollback = { ...rev(3, "deployed"), description: "Rollback to 2" };
        const d = run({ op: updating, recorded, facts: helmFacts([rev(1, "superseded"), rev(2, "superseded"), rollback]) });
        assert.deepEqual(d.edit, { kind: "clear", urn: updating.resource.urn });
        assert.match(d.found, /Helm rolled it back \(revision 3, "Rollback to 2"\)/);
    });

    it("it never reached Helm: cleared; the next up upgrades", () => {
        const d = run({ op: updating, recorded, facts: helmFacts([rev(1, "superseded"), rev(2, "deployed")]) });
        assert.deepEqual(d.edit, { kind: "clear", urn: updating.resource.urn });
    });

    it("stuck pending-upgrade: rolled back to the last deployed revision, then cleared and read", () => {
        const d = run({ op: updating, recorded, facts: helmFacts([rev(1, "superseded"), rev(2, "deployed"), rev(3, "pending-upgrade")]) });
        assert.deepEqual(d.helm, { kind: "rollback", name: "nats", namespace: "nats-system", revision: 2 });
        assert.deepEqual(d.edit, { kind: "clear", urn: updating.resource.urn });
        assert.equal(d.refresh, true);
    });

    it("a release that keeps data is rolled back too (a rollback keeps its volumes)", () => {
        const d = run({
            op: updating,
            recorded,
            facts: helmFacts([rev(2, "deployed"), rev(3, "pending-upgrade")], { claims: [{ name: "data-0", bound: true }] }),
            dataReleases: new Set(["nats"]),
        });
        assert.equal(d.helm?.kind, "rollback");
    });

    it("pending with no earlier deployed revision: it stops", () => {
        assert.ok(run({ op: updating, recorded, facts: helmFacts([rev(1, "failed"), rev(2, "pending-upgrade")]) }).stop);
    });

    it("failed: cleared and read; Helm upgrades a failed release from its last deployed revision", () => {
        const d = run({ op: updating, recorded, facts: helmFacts([rev(2, "deployed"), rev(3, "failed")]) });
        assert.deepEqual(d.edit, { kind: "clear", urn: updating.resource.urn });
        assert.equal(d.helm, undefined);
    });

    it("gone from the cluster: cleared; the refresh drops it", () => {
        const d = run({ op: updating, recorded, facts: helmFacts([]) });
        assert.equal(d.edit?.kind, "clear");
        assert.equal(d.refresh, true);
    });
});

describe("recover: an interrupted destroy", () => {
    const deleting = op("deleting", { ...helmRelease("nats", "nats-system"), id: "nats-system/nats" });

    it("uninstalled by Helm: cleared, and the refresh drops it from the stack", () => {
        const d = run({ op: deleting, facts: helmFacts([]) });
        assert.equal(d.edit?.kind, "clear");
        assert.equal(d.refresh, true);
    });

    it("left uninstalling: cleared and read; the next destroy finishes the uninstall", () => {
        const d = run({ op: deleting, facts: helmFacts([rev(1, "uninstalling")]) });
        assert.equal(d.edit?.kind, "clear");
        assert.equal(d.helm, undefined);
        assert.match(d.found, /an interrupted uninstall/);
    });

    it("an object being deleted: cleared and read again", () => {
        const d = run({ op: op("deleting", object("Namespace", "nvcf")), facts: { kind: "none" } });
        assert.equal(d.edit?.kind, "clear");
        assert.equal(d.refresh, true);
    });
});

describe("recover: other objects, dynamic resources, providers", () => {
    it("an object that exists and the provider applied: adopted with its id and the provider's field manager", () => {
        const o = op("creating", object("DaemonSet", "node-inotify-tuner", "kube-system", "apps/v1"));
        const d = run({ op: o, facts: objectFacts({ fieldManager: "pulumi-kubernetes-1a2b3c4d" }) });
        assert.deepEqual(d.edit, {
            kind: "adopt",
            urn: o.resource.urn,
            id: "kube-system/node-inotify-tuner",
            outputs: { __fieldManager: "pulumi-kubernetes-1a2b3c4d", __initialApiVersion: "apps/v1" },
        });
        assert.equal(d.refresh, true);
    });

    it("a cluster-scoped object's id is its name", () => {
        const d = run({
            op: op("creating", object("Namespace", "nvcf")),
            facts: objectFacts({ namespaced: false, fieldManager: "pulumi-kubernetes" }),
        });
        assert.equal(d.edit?.kind === "adopt" ? d.edit.id : undefined, "nvcf");
    });

    it("an object that does not exist, or whose kind is not served yet: the create is cleared", () => {
        const o = op("creating", object("ClusterPolicy", "nvcf-pull-secret", undefined, "kyverno.io/v1"));
        assert.deepEqual(run({ op: o, facts: objectFacts({ exists: false }) }).edit, { kind: "clear", urn: o.resource.urn });
        assert.deepEqual(run({ op: o, facts: objectFacts({ served: false, exists: false }) }).edit, { kind: "clear", urn: o.resource.urn });
    });

    it("an object of that name the provider never applied is someone else's: it stops", () => {
        const d = run({ op: op("creating", object("Namespace", "nvcf")), facts: objectFacts({ namespaced: false }) });
        assert.ok(d.stop);
        assert.match(d.stop!.join(" "), /pulumi import --stack dev kubernetes:core\/v1:Namespace/);
    });

    it("the registration's pending create is cleared: its create adopts what ICMS holds", () => {
        const reg = op("creating", {
            urn: URN("pulumi-nodejs:dynamic/nvcf:ClusterRegistration", "compute-plane-gpu-1-registration"),
            type: "pulumi-nodejs:dynamic/nvcf:ClusterRegistration",
            custom: true,
            inputs: {},
        });
        const d = run({ op: reg, facts: { kind: "none" } });
        assert.deepEqual(d.edit, { kind: "clear", urn: reg.resource.urn });
        assert.match(d.will, /adopts a registration ICMS already holds/);
        assert.equal(d.refresh, false);
    });

    it("a random value's pending create is cleared: nothing used it yet", () => {
        const r = op("creating", {
            urn: URN("random:index/randomPassword:RandomPassword", "pw"),
            type: "random:index/randomPassword:RandomPassword",
            custom: true,
        });
        const d = run({ op: r, facts: { kind: "none" } });
        assert.equal(d.edit?.kind, "clear");
        assert.match(d.will, /nothing used it yet/);
    });

    it("a provider's, or a read's, pending operation is cleared", () => {
        const p = op("creating", {
            urn: URN("pulumi:providers:kubernetes", "control-plane"),
            type: "pulumi:providers:kubernetes",
            custom: true,
        });
        assert.equal(run({ op: p, facts: { kind: "none" } }).edit?.kind, "clear");
        // Every operation type the engine writes but the three that change a cluster is cleared.
        for (const type of PENDING_OPERATION_TYPES.filter((t) => !["creating", "updating", "deleting"].includes(t)))
            assert.equal(run({ op: op(type, object("Namespace", "x")), facts: { kind: "none" } }).edit?.kind, "clear", type);
    });

    it("a component's pending operation is cleared: it has nothing outside the state (seen after a kill as the first install began)", () => {
        const component = {
            urn: URN("nvcf:kubernetes:Namespaces", "compute-plane-gpu-e2e-namespaces"),
            type: "nvcf:kubernetes:Namespaces",
            custom: false,
        };
        for (const type of ["creating", "deleting"] as const) {
            const d = run({ op: op(type, component), facts: { kind: "none" } });
            assert.deepEqual(d.edit, { kind: "clear", urn: component.urn }, type);
            assert.equal(d.stop, undefined);
            assert.match(d.found, /of a component \(nothing outside Pulumi's state\)/);
        }
        // The same type as a custom resource of an unknown provider still stops.
        assert.ok(run({ op: op("creating", { ...component, custom: true }), facts: { kind: "none" } }).stop);
    });

    it("another provider's create cannot be looked up: it stops with Pulumi's own commands", () => {
        const rec = op("creating", { urn: URN("aws:route53/record:Record", "api"), type: "aws:route53/record:Record", custom: true });
        const d = run({ op: rec, facts: { kind: "none" } });
        assert.match(d.stop!.join("\n"), /--import-pending-creates '.*' --import-pending-creates <its id>[\s\S]*--clear-pending-creates/);
        const upd = run({ op: op("updating", rec.resource), facts: { kind: "none" } });
        assert.equal(upd.edit?.kind, "clear");
        assert.equal(upd.refresh, true);
    });
});

describe("recover: checkpoint edits", () => {
    const provider = {
        urn: URN("pulumi:providers:kubernetes", "control-plane"),
        type: "pulumi:providers:kubernetes",
        custom: true,
        id: "p-1",
        inputs: { kubeconfig: secret("apiVersion: v1\n") },
    };
    const release = { ...helmRelease("nats", "nats-system"), provider: `${URN("pulumi:providers:kubernetes", "control-plane")}::p-1` };
    const ns = object("Namespace", "nvcf");
    const exported = {
        version: 3,
        deployment: {
            manifest: { time: "t" },
            resources: [provider, ns as StateResource],
            pending_operations: [
                op("creating", release),
                op("updating", { ...ns, inputs: { ...ns.inputs, metadata: { name: "nvcf", labels: { a: "b" } } } }),
            ],
        },
    };

    it("an adopted Helm release: appended with its id, the op gone, outputs with the provider's secret __inputs", () => {
        const out = applyEdits(exported, [{ kind: "adopt", urn: release.urn, id: "nats-system/nats" }]);
        const adopted = out.deployment.resources!.at(-1)!;
        assert.equal(adopted.urn, release.urn);
        assert.equal(adopted.id, "nats-system/nats");
        assert.deepEqual(adopted.inputs, release.inputs);
        assert.deepEqual(reveal(adopted.outputs!.__inputs), release.inputs, "__inputs is the secret the provider diffs against");
        assert.deepEqual(
            out.deployment.pending_operations!.map((o) => o.type),
            ["updating"],
        );
        assert.equal(exported.deployment.pending_operations.length, 2, "the input is not changed");
    });

    it("a recorded update takes the operation's inputs; a clear only drops the operation", () => {
        const out = applyEdits(exported, [{ kind: "record", urn: ns.urn }]);
        assert.deepEqual(reveal(out.deployment.resources![1].inputs!.metadata), { name: "nvcf", labels: { a: "b" } });
        const cleared = applyEdits(exported, [{ kind: "clear", urn: release.urn }]);
        assert.equal(cleared.deployment.resources!.length, 2);
        assert.equal(cleared.deployment.pending_operations!.length, 1);
        assert.throws(() => applyEdits(exported, [{ kind: "clear", urn: "urn:nope" }]), /no pending operation for urn:nope/);
    });

    it("finds a resource's provider by urn and id, and unwraps a secret", () => {
        assert.equal(providerOf(exported.deployment, release.provider), provider);
        assert.equal(reveal(provider.inputs.kubeconfig), "apiVersion: v1\n");
        assert.equal(kindOf("kubernetes:helm.sh/v3:Release"), "helm-release");
        assert.equal(kindOf("pulumi:providers:kubernetes"), "provider");
        assert.equal(kindOf("kubernetes:core/v1:Namespace"), "kubernetes-object");
    });

    it("an adoption whose provider read never ran is found again on the next run", () => {
        const adopted = applyEdits(exported, [{ kind: "adopt", urn: release.urn, id: "nats-system/nats" }]);
        assert.deepEqual(
            unreadResources(adopted.deployment).map((r) => r.urn),
            [release.urn],
        );
        const read = {
            ...adopted.deployment,
            resources: adopted.deployment.resources!.map((r) => ({
                ...r,
                // A provider's read answers a whole new set of outputs.
                outputs: { status: { revision: 1 } },
            })),
        };
        assert.deepEqual(unreadResources(read), []);
    });
});
