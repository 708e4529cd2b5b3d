import { PROJECT } from "../model/keys";
import type { SettingsRule } from "./rule";

/** The control plane's EKS cluster is reached through its name: no context or kubeconfig secret besides. */
export const eksClusterByNameAlone: SettingsRule = (settings) => {
    if (settings.cluster.eks && (settings.cluster.context || settings.secrets.kubeconfig)) {
        return [
            {
                key: `${PROJECT}:cluster.eks`,
                message: "an EKS cluster is reached through its name alone: set no context and no kubeconfig secret",
            },
        ];
    }
    return [];
};
