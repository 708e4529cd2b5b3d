// The pack's entry point, run by `pulumi preview --policy-pack policies`. It only assembles the
// policies: constructing a PolicyPack starts the analyzer's gRPC server, so tests never import it.
import { PolicyPack } from "@pulumi/policy";
import { POLICIES } from "./rules/all";

new PolicyPack("nvcf-self-managed", {
    description: "NVIDIA's NVCF self-managed runbook rules, checked on every preview.",
    enforcementLevel: "mandatory",
    policies: POLICIES,
});
