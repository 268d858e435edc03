/**
 * The editorconfig matching thread: runs the `editorconfig` library's `matcher` (EditorConfig's own
 * core for JavaScript: the file parsed as the root `.editorconfig` of a virtual directory, the
 * specification's globbing, later sections winning) for the jobs it is sent, one at a time. Brace
 * sets and numeric ranges expand into as many patterns as they name, so a match can take seconds
 * of CPU: it runs here, where the main thread's time limit can stop it.
 */
import { Buffer } from "node:buffer"
import { parentPort } from "node:worker_threads"
import { matcher } from "editorconfig"
import type { MatchJob, MatchReply } from "./MatchMessages.ts"

/** A directory that exists nowhere: the library only joins paths, it never reads this one. */
const ROOT = "/kiln-editorconfig-root"

const port = parentPort
if (port !== null) {
  port.on("message", (job: MatchJob) => {
    let reply: MatchReply
    try {
      const match = matcher({ root: ROOT }, Buffer.from(job.config.buffer, job.config.byteOffset, job.config.byteLength))
      reply = { _tag: "Matched", id: job.id, properties: { ...match(`${ROOT}/${job.fileName}`) } }
    } catch (error) {
      reply = { _tag: "Failed", id: job.id, message: error instanceof Error ? error.message : String(error) }
    }
    port.postMessage(reply)
  })
  // One match first: the library's lazy start (its WebAssembly parser) belongs to the thread's
  // start, not to the first job's time limit.
  matcher({ root: ROOT }, Buffer.from("[*]\nindent_style = tab\n"))(`${ROOT}/warm-up`)
  const ready: MatchReply = { _tag: "Ready" }
  port.postMessage(ready)
}
