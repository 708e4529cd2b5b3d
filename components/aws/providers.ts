import type * as Aws from "@pulumi/aws";

/** How to reach AWS: a region, optionally a profile and a role to assume. */
export interface AwsAccess {
    readonly region: string;
    readonly profile?: string;
    readonly roleArn?: string;
}

/**
 * @pulumi/aws, loaded only by stacks that use AWS: loading it costs every evaluation about a
 * second, which stacks on other clusters should not pay.
 */
export function awsSdk(): typeof Aws {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("@pulumi/aws") as typeof Aws;
}

/** One explicit AWS provider per distinct access (region, profile, role) in the stack. */
export class AwsProviders {
    private readonly byKey = new Map<string, Aws.Provider>();

    get(access: AwsAccess): Aws.Provider {
        const key = [access.region, access.profile ?? "", access.roleArn ?? ""].join("|");
        let provider = this.byKey.get(key);
        if (!provider) {
            const name = ["aws", access.region, access.profile, access.roleArn?.split("/").pop()].filter(Boolean).join("-");
            provider = new (awsSdk().Provider)(name, {
                region: access.region,
                ...(access.profile ? { profile: access.profile } : {}),
                ...(access.roleArn ? { assumeRoles: [{ roleArn: access.roleArn }] } : {}),
            });
            this.byKey.set(key, provider);
        }
        return provider;
    }
}
