/**
 * A process that holds a render pool busy with a slow render and prints its render processes' pids,
 * for WorkerPool.test.ts to kill (SIGKILL) and see whether they outlive it.
 */
import { renderRequest } from "@kiln/domain/markdown/RenderRequest"
import { execFileSync } from "node:child_process"
import { makeWorkerPool } from "../../src/worker/WorkerPool.ts"

const pool = makeWorkerPool({ size: 1, timeoutMillis: 600_000 })
// Renders for a minute or more (a review measured 73 s for 140,000 of these).
const slow = "[a](".repeat(90_000)
void pool.render(renderRequest({ text: slow, mode: "gfm", context: "", wiki: false }, "http://localhost:3000/"), [])
setTimeout(() => {
  process.stdout.write(`${execFileSync("pgrep", ["-P", String(process.pid)]).toString().trim().split("\n").join(" ")}\n`)
}, 1_500)
