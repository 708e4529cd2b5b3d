/**
 * What the NVCF API answers, as NVIDIA/nvcf defines it at the commit the bundle pins (fadc0f81):
 * nvcf-core's QueueController, GetQueuesResponse and QueueDto
 * (src/control-plane-services/cloud-functions/nvcf-core/src/main/java/com/nvidia/nvcf/rest/queue/).
 * Every row is in docs/contracts.md.
 */

/** Queue details of a function, or of one version of it. */
export const QUEUE_DETAILS = {
    /** `GET`; both ids are path variables of type UUID (anything else answers 400). */
    path: "/v2/nvcf/queues/functions/{functionId}/versions/{versionId}",
    /** The API key's scope (`hasAnyAuthority('queue_details', 'apikey:queue_details')`). */
    scope: "queue_details",
} as const;

/** GetQueuesResponse: both fields @NotNull. */
export interface QueuesResponse {
    readonly functionId: string;
    readonly queues: readonly QueueDto[];
}

/** QueueDto: `queueDepth` is a primitive int, so it is always in the answer, 0 included. */
export interface QueueDto {
    readonly functionVersionId: string;
    readonly functionName: string;
    readonly functionStatus: string;
    readonly queueDepth: number;
}

export function queueDetailsPath(functionId: string, versionId?: string): string {
    const fn = `/v2/nvcf/queues/functions/${encodeURIComponent(functionId)}`;
    return versionId ? `${fn}/versions/${encodeURIComponent(versionId)}` : fn;
}

/**
 * Function management (nvcf-core `rest/function/management/FunctionManagementController.java`,
 * served by nvcf-service). The admin JWT the admin issuer proxy signs carries the three scopes
 * (`migrations/openbao/migrations/10_setup_admin-issuer.sh` SCOPES).
 */
export const FUNCTIONS = {
    /** `POST` creates (200, `{function: FunctionDto}`); `GET` lists one entry per version (`{functions: [...]}`). */
    path: "/v2/nvcf/functions",
    /** `DELETE` answers 204; an unknown id 404. */
    versionPath: "/v2/nvcf/functions/{functionId}/versions/{versionId}",
    createScope: "register_function",
    listScope: "list_functions",
    deleteScope: "delete_function",
    /** CreateFunctionRequest's `name` pattern, at most 128 characters; names need not be unique. */
    namePattern: /^[a-z0-9A-Z][a-z0-9A-Z\-_]*$/,
    /** FunctionMapperService: every new function starts INACTIVE (it is not deployed). */
    createdStatus: "INACTIVE",
} as const;

/** FunctionDto, the fields the smoke check reads. */
export interface FunctionDto {
    readonly id: string;
    readonly versionId: string;
    readonly name: string;
    readonly status: string;
}

export function functionVersionPath(functionId: string, versionId: string): string {
    return `${FUNCTIONS.path}/${encodeURIComponent(functionId)}/versions/${encodeURIComponent(versionId)}`;
}
