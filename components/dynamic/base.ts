import type * as pulumi from "@pulumi/pulumi";
import type { SecretKey } from "../../config/model/keys";
import { PROJECT } from "../../config/model/project";
import type { KubeSecrets } from "../../lib/cluster-access/reach";

/**
 * A stack secret as the engine hands it to a dynamic provider's `configure`, in the provider's
 * own process: secrets are read there, so they are never a resource's inputs. "" counts as unset.
 */
export function secretConfig(req: pulumi.dynamic.ConfigureRequest, key: SecretKey): string | undefined {
    return req.config.get(`${PROJECT}:${key}`) || undefined;
}

/** The kubeconfig secrets, as a provider's `configure` reads them. */
export function readKubeSecrets(req: pulumi.dynamic.ConfigureRequest): KubeSecrets {
    return { kubeconfig: secretConfig(req, "kubeconfig"), computePlaneKubeconfigs: secretConfig(req, "computePlaneKubeconfigs") };
}

/**
 * The declared inputs whose value changed; the engine's own `__provider` input is not one of them.
 * Objects compare by content: the engine hands state back with its keys in another order.
 */
export function changedInputs<T extends object>(olds: Partial<T>, news: T): (keyof T)[] {
    const keys = Object.keys(news).filter((k) => k !== "__provider") as (keyof T)[];
    return keys.filter((k) => canonicalJson(olds[k]) !== canonicalJson(news[k]));
}

/** JSON with every object's keys sorted, so equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string | undefined {
    const sorted = (v: unknown): unknown =>
        Array.isArray(v)
            ? v.map(sorted)
            : v && typeof v === "object"
              ? Object.fromEntries(
                    Object.keys(v)
                        .sort()
                        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
                )
              : v;
    return JSON.stringify(sorted(value));
}

/** What the engine passes for an input not known yet (a preview before an upstream resource exists). */
export const UNKNOWN_INPUT = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
