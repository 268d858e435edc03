/**
 * A render process: renders the jobs the server sends it over IPC, one at a time, on its main
 * thread. Its heap is bounded (`--max-old-space-size`, given by the pool): a render that needs more
 * ends this small process, never the server, and the pool answers it. A job that overflows the
 * stack is rendered again in a thread with a deep stack (DeepStackRender), under the same heap
 * limit; that is rare (thousands of nested blocks), so the common render pays for no thread.
 */
import { setFlagsFromString } from "node:v8"
import { Worker } from "node:worker_threads"
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

const [maxOldGenerationSizeMb, stackSizeMb] = process.argv.slice(2).map(Number)
const send = process.send?.bind(process)
if (send === undefined) throw new Error("a render process is started by the render pool, with an IPC channel")

const deepStackRender = (job: RenderJob): Promise<WorkerMessage> =>
  new Promise((resolve) => {
    // The failed attempt's trees are garbage: collected now, the process holds one render's heap at a time.
    globalThis.gc?.()
    const thread = new Worker(
      new URL(import.meta.url.endsWith(".ts") ? "./DeepStackRender.ts" : "./DeepStackRender.js", import.meta.url),
      { workerData: job, resourceLimits: { maxOldGenerationSizeMb, stackSizeMb } }
    )
    thread.once("message", (message: WorkerMessage) => {
      resolve(message)
      void thread.terminate()
    })
    // A thread that ran out of memory without aborting the process: the pool answers the job when
    // the process ends, as it does when V8 aborts it.
    thread.once("error", () => process.exit(70))
  })

process.on("message", (job: RenderJob) => {
  const result = renderJob(job)
  if (result._tag === "Answered") send(result.message)
  else void deepStackRender(job).then((message) => send(message))
})
process.on("disconnect", () => process.exit(0))
const ready: WorkerMessage = { _tag: "Ready" }
send(ready)
