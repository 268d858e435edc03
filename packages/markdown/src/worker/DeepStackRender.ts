/**
 * A thread a render process starts for one job that overflowed its main thread's stack: a thread's
 * stack can be sized (64 MB renders thousands of nested quotes or lists, as Forgejo does), where a
 * process's main thread has the system's (8 MB, of which V8 uses ~1).
 */
import { parentPort, workerData } from "node:worker_threads"
import { renderJobOnDeepestStack } from "./RenderJob.ts"
import type { RenderJob } from "./RenderMessages.ts"

parentPort?.postMessage(renderJobOnDeepestStack(workerData as RenderJob))
