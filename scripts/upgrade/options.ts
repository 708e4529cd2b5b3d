/** What `npm run upgrade` is asked to do, and what it works with (the tests give their own). */
import type { BundleRelease } from "../../components/bundle/bundle-releases";
import type { Settings } from "../../config/settings";
import type { Clusters } from "./checks";
import type { Engine } from "./engine";
import type { QueueAccess, QueueRef } from "./function-queues";
import type { ProgressStore } from "./progress";

export interface UpgradeOptions {
    readonly stack: string;
    /** Print the stages, each targeted preview and the checks; change nothing. */
    readonly plan: boolean;
    /** The installed bundle release, for an environment without a receipt (installed before receipts). */
    readonly from?: string;
    /** Forget a recorded upgrade to another release and start over. */
    readonly restart: boolean;
    /** Function queues that must be empty before NATS restarts (with the NVCF API's access). */
    readonly queues: readonly QueueRef[];
    readonly queueAccess?: QueueAccess;
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface UpgradeDeps {
    readonly engine: Engine;
    /** The stack's settings (non-secret), as the program parses them. */
    readonly settings: Settings;
    readonly clusters: Clusters;
    readonly progress: ProgressStore;
    /** The bundle releases this checkout knows, oldest first. */
    readonly releases: readonly BundleRelease[];
    readonly out: (text: string) => void;
    readonly sleep?: (ms: number) => Promise<void>;
    readonly now?: () => Date;
    /** Aborted by Ctrl-C: the upgrade stops at its next step; a stage it stops in is recorded as failed. */
    readonly signal?: AbortSignal;
}
