/**
 * A render process: hosts one render thread, with its heap limit and a stack deep enough for deep
 * nesting (64 MB renders thousands of nested quotes or lists, as Forgejo does, where a process's main
 * thread has the system's 8 MB), and relays the jobs the server sends it over IPC. The process is
 * what contains the thread's limits: a thread at its heap limit ends with an error (and this
 * process with it), or V8 aborts the whole process, this small one and never the server; either
 * way the pool answers the render. The main thread only relays, so it is free to end the process
 * (and its render) as soon as the server goes away.
 *
 * Arguments: the thread's heap limit and stack size, in MB.
 */
import { Worker } from "node:worker_threads"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

const [maxOldGenerationSizeMb, stackSizeMb] = process.argv.slice(2).map(Number)
const send = process.send?.bind(process)
if (send === undefined) throw new Error("a render process is started by the render pool, with an IPC channel")

const thread = new Worker(
  new URL(import.meta.url.endsWith(".ts") ? "./RenderThread.ts" : "./RenderThread.js", import.meta.url),
  { resourceLimits: { maxOldGenerationSizeMb, stackSizeMb } }
)
thread.on("message", (message: WorkerMessage) => send(message))
process.on("message", (job: RenderJob) => thread.postMessage(job))
// A thread that ended (out of memory) ends the process: the pool answers its render and starts another.
thread.on("error", () => process.exit(70))
thread.on("exit", () => process.exit(70))
process.on("disconnect", () => process.exit(0))
