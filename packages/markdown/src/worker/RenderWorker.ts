/**
 * A render worker thread: renders the jobs it is sent, one at a time. A render that throws
 * (say, a stack overflow on absurd nesting) answers the escaped text instead, as Forgejo falls
 * back to the raw input when goldmark panics.
 */
import { parentPort } from "node:worker_threads"
import { renderMarkdown } from "../Pipeline.ts"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

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
