import { httpKube, type Kube } from "./client";
import { apiServer } from "../cluster-access/access";
import { kubeAccessOf, type ClusterReach, type KubeSecrets } from "../cluster-access/reach";

/** The API server a dynamic provider reaches, over the providers' HTTP client. */
export async function connect(reach: ClusterReach, secrets: KubeSecrets, timeoutSeconds: number): Promise<Kube> {
    const api = await apiServer(kubeAccessOf(reach, secrets));
    return httpKube(api, { timeoutMs: timeoutSeconds * 1000, retries: 1, retryDelayMs: 500 });
}
