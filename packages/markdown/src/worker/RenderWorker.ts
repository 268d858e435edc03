/**
 * A render worker thread: renders the jobs it is sent, one at a time. A render that throws
 * (say, a stack overflow on absurd nesting) answers the escaped text instead, as Forgejo falls
 * back to the raw input when goldmark panics.
 */
import { setFlagsFromString } from "node:v8"
import { parentPort } from "node:worker_threads"
import { renderMarkdown } from "../Pipeline.ts"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

// A render's trees live until it ends, so a scavenge in mid-render finds a parse's objects alive and
// V8's allocation-site pretenuring starts allocating them straight into the old generation, where
// they die an instant later and keep the young objects they point to alive as well. In the server,
// a 20 KB README then cost up to 3 MB promoted and 7 to 18 ms of GC helper-thread CPU per
// render, varying from run to run; without it 0.6 MB and 5 ms, and the render thread did about 20%
// less work. The flag is process-wide; V8 reads it when it weighs its pretenuring feedback, so
// setting it before the first render is enough.
setFlagsFromString("--no-allocation-site-pretenuring")

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;")

const port = parentPort
if (port !== null) {
  port.on("message", (job: RenderJob) => {
    let message: WorkerMessage
    try {
      message = { _tag: "Rendered", id: job.id, html: renderMarkdown(job.request, new Set(job.mentionable)) }
    } catch (error) {
      message = { _tag: "Rendered", id: job.id, html: `<p>${escapeHtml(job.request.text)}</p>\n`, failure: String(error) }
    }
    port.postMessage(message)
  })
  const ready: WorkerMessage = { _tag: "Ready" }
  port.postMessage(ready)
}
