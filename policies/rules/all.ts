import type { Policies } from "@pulumi/policy";
import { adminIssuerGrantRevoked } from "./admin-issuer-grant-revoked";
import { cassandraPasswordSet } from "./cassandra-password-set";
import { cassandraPasswordsMatch } from "./cassandra-passwords-match";
import { certManagerOnlyWhenEnabled } from "./cert-manager-only-when-enabled";
import { helmReleaseNoCreateNamespace } from "./helm-release-no-create-namespace";
import { helmReleasePinnedAndNamed } from "./helm-release-pinned-and-named";
import { helmReleaseTimeout } from "./helm-release-timeout";
import { kaiFeatureGateNeedsKaiScheduler } from "./kai-feature-gate-needs-kai-scheduler";
import { natsTokenAuthWebhookUrl } from "./nats-token-auth-webhook-url";
import { noLatestImageTag } from "./no-latest-image-tag";
import { nvcaOperatorPrerequisites } from "./nvca-operator-prerequisites";
import { openbaoMigrationsEnvComplete } from "./openbao-migrations-env-complete";
import { podAnnotationValuesAreStrings } from "./pod-annotation-values-are-strings";
import { podAnnotationsNoChartManagedKeys } from "./pod-annotations-no-chart-managed-keys";
import { podAnnotationsReservedPrefix } from "./pod-annotations-reserved-prefix";
import { privilegedOnlyInotifyTuner } from "./privileged-only-inotify-tuner";
import { registryCredentialsRawAuth } from "./registry-credentials-raw-auth";

/** Every policy of the pack, in the order docs/operations.md (Policy pack) lists them. */
export const POLICIES: Policies = [
    helmReleasePinnedAndNamed,
    helmReleaseNoCreateNamespace,
    helmReleaseTimeout,
    cassandraPasswordSet,
    cassandraPasswordsMatch,
    openbaoMigrationsEnvComplete,
    podAnnotationValuesAreStrings,
    podAnnotationsNoChartManagedKeys,
    podAnnotationsReservedPrefix,
    natsTokenAuthWebhookUrl,
    registryCredentialsRawAuth,
    adminIssuerGrantRevoked,
    privilegedOnlyInotifyTuner,
    noLatestImageTag,
    nvcaOperatorPrerequisites,
    kaiFeatureGateNeedsKaiScheduler,
    certManagerOnlyWhenEnabled,
];
