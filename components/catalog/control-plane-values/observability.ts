import { componentMode, metricsBackendMode } from "../../../config/model/derived-facts";
import type { Values, ValuesContext } from "./context";
import { nonEmpty, pullSecrets } from "./common";

/** Release `prometheus-operator-crds`: the CRD selection of the observability bundle. */
export function prometheusOperatorCrdsValues(ctx: ValuesContext): Values {
    return structuredClone(ctx.cp.prometheusOperatorCrds.values);
}

/** Release `opentelemetry-operator`. */
export function opentelemetryOperatorValues(ctx: ValuesContext): Values {
    const o = ctx.cp.opentelemetryOperator;
    const certManager = o.admissionWebhooks.certManager.enabled;
    return {
        admissionWebhooks: {
            certManager: { enabled: certManager },
            autoGenerateCert: { enabled: !certManager, recreate: o.admissionWebhooks.autoGenerateCert.recreate },
        },
        manager: {
            ...nonEmpty("collectorImage", o.manager.collectorImage),
            ...nonEmpty("targetAllocatorImage", o.manager.targetAllocatorImage),
        },
        ...pullSecrets(ctx),
    };
}

/**
 * Release `victoria-metrics` (metricsBackend.mode install): the observability bundle's values file,
 * which names the server `vmsingle` (the Service the collector and the autoscaler reach).
 */
export function victoriaMetricsValues(ctx: ValuesContext): Values {
    const vm = ctx.cp.victoriaMetrics;
    const volume = vm.server.persistentVolume;
    return {
        server: {
            fullnameOverride: "vmsingle",
            retentionPeriod: vm.server.retentionPeriod,
            persistentVolume: {
                enabled: volume.enabled,
                size: volume.size,
                ...(volume.storageClass ? { storageClassName: volume.storageClass } : {}),
            },
            resources: structuredClone(vm.server.resources),
            serviceMonitor: { enabled: vm.serviceMonitor.enabled },
        },
        // This chart reads pull secrets under `global`.
        ...(ctx.imagePullSecrets.length > 0 ? { global: pullSecrets(ctx) } : {}),
    };
}

/** Release `otel-collector`: remote-writes to the bundled or the existing metrics backend. */
export function otelCollectorValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const c = cp.collector;
    const remoteWrite =
        metricsBackendMode(cp) === "install"
            ? `http://${ctx.address("victoria-metrics")}/api/v1/write`
            : cp.metricsBackend.remoteWriteEndpoint;
    const config = structuredClone(c.config) as { exporters?: Record<string, Record<string, unknown>> };
    config.exporters = {
        ...config.exporters,
        prometheusremotewrite: { ...config.exporters?.prometheusremotewrite, endpoint: remoteWrite },
    };
    return {
        collectorName: c.collectorName,
        image: c.image,
        ...pullSecrets(ctx),
        targetAllocatorRbac: { create: componentMode(cp, "discoveryRbac") === "install" },
        targetAllocator: { ...structuredClone(c.targetAllocator), enabled: componentMode(cp, "targetAllocator") === "install" },
        config,
    };
}

/** Release `default-monitors`: control-plane monitors for control/all, compute-plane ones for compute/all. */
export function defaultMonitorsValues(ctx: ValuesContext): Values {
    const profile = ctx.cp.observability.profile;
    const monitors = structuredClone(ctx.cp.defaultMonitors) as Record<string, Record<string, unknown> | undefined>;
    const section = (name: string, on: boolean) => ({ ...monitors[name], enabled: monitors[name]?.enabled ?? on });
    return {
        ...monitors,
        controlPlane: section("controlPlane", profile === "control" || profile === "all"),
        computePlane: section("computePlane", profile === "compute" || profile === "all"),
    };
}
