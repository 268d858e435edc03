/** The render thread of a render process (RenderProcess.ts): renders the jobs it is given, one at a time. */
import { setFlagsFromString } from "node:v8"
import { parentPort } from "node:worker_threads"
import { renderJob } from "./RenderJob.ts"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

// A render's trees live until it ends, so a scavenge in mid-render finds a parse's objects alive and
// V8's allocation-site pretenuring starts allocating them straight into the old generation, where
// they die an instant later and keep the young objects they point to alive as well. In the server,
// a 20 KB README then cost up to 3 MB promoted and 7 to 18 ms of GC helper-thread CPU per
// render, varying from run to run; without it 0.6 MB and 5 ms, and the render thread did about 20%
// less work. V8 reads the flag when it weighs its pretenuring feedback, so setting it before the
// first render is enough.
setFlagsFromString("--no-allocation-site-pretenuring")

const port = parentPort
if (port !== null) {
  port.on("message", (job: RenderJob) => port.postMessage(renderJob(job)))
  const ready: WorkerMessage = { _tag: "Ready" }
  port.postMessage(ready)
}
