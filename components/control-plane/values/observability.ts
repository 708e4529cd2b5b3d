import type { Values, ValuesContext } from "./context";
import { pullSecrets } from "./common";

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
            collectorImage: o.manager.collectorImage,
            ...(o.manager.targetAllocatorImage ? { targetAllocatorImage: o.manager.targetAllocatorImage } : {}),
        },
        ...pullSecrets(ctx),
    };
}

/** Release `victoria-metrics` (metricsBackend.mode install). */
export function victoriaMetricsValues(ctx: ValuesContext): Values {
    return { ...pullSecrets(ctx) };
}

/** Release `otel-collector`: remote-writes to the bundled or the existing metrics backend. */
export function otelCollectorValues(ctx: ValuesContext): Values {
    const { cp } = ctx;
    const c = cp.collector;
    const remoteWrite =
        cp.metricsBackend.mode === "install"
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
        targetAllocatorRbac: { create: true },
        targetAllocator: { ...c.targetAllocator, enabled: true },
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
