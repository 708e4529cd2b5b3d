import type * as pulumi from "@pulumi/pulumi";
import type { SecretKey } from "../../config/keys";
import { PROJECT } from "../../config/project";

/**
 * A stack secret as the engine hands it to a dynamic provider's `configure`, in the provider's
 * own process: secrets are read there, so they are never a resource's inputs. "" counts as unset.
 */
export function secretConfig(req: pulumi.dynamic.ConfigureRequest, key: SecretKey): string | undefined {
    return req.config.get(`${PROJECT}:${key}`) || undefined;
}

/** The declared inputs whose value changed; the engine's own `__provider` input is not one of them. */
export function changedInputs<T extends object>(olds: Partial<T>, news: T): (keyof T)[] {
    const keys = Object.keys(news).filter((k) => k !== "__provider") as (keyof T)[];
    return keys.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
}
