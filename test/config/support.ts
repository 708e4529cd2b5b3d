// What the tests of the settings (parseSettings and the rules in config/rules/) share: the keys'
// prefixes, and the pieces of stack config they put together with devRaw (test/support/raw-config.ts).

export const P = "nvcf-self-managed";
export const CP = `${P}:controlPlane`;
export const EKS = { name: "nvcf-cp", region: "us-west-2" };

/** A compute plane on the control plane's cluster, with `extra` over it. */
export const plane = (extra: Record<string, unknown> = {}) => ({ clusterName: "gpu", cluster: { sameAsControlPlane: true }, ...extra });

/** A compute plane's add-ons, each turned on. */
export const kai = { kaiScheduler: { enabled: true } };
export const grove = { groveOperator: { enabled: true } };
export const dynamo = { dynamoOperator: { enabled: true } };
