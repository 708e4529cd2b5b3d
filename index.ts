import { ComputePlane } from "./components/compute-plane/compute-plane";
import { RELEASE_NAMES } from "./components/control-plane/catalog";
import { ControlPlane } from "./components/control-plane/control-plane";
import { clusterProvider } from "./components/kubernetes/provider";
import { loadSettings } from "./config/load";

/**
 * The program: stack config is validated before anything is declared, then the components
 * are wired. Pulumi calls the exported function and takes its result as the stack outputs.
 */
export = function main() {
    const settings = loadSettings({ releaseNames: RELEASE_NAMES });
    const provider = clusterProvider("control-plane", settings.cluster, settings.secrets.kubeconfig);
    const controlPlane = new ControlPlane("control-plane", { settings }, { providers: [provider] });
    const computePlanes = settings.computePlanes.map(
        (plane) => new ComputePlane(`compute-plane-${plane.clusterName}`, { plane, settings, controlPlane }),
    );
    return {
        ...controlPlane.outputs,
        computePlanes: Object.fromEntries(computePlanes.map((c) => [c.outputs.clusterName, c.outputs])),
    };
};
