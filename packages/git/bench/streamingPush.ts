/**
 * Pushes and clones a repository of incompressible data through SmartHttp and samples this
 * process's resident memory meanwhile: if packs streamed through memory, RSS would grow by the pack.
 * Run: npx pnpm@12.21.0 exec node packages/git/bench/streamingPush.ts [MiB]
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"

const mebibytes = Number(process.argv[2] ?? "256")
const root = mkdtempSync(join(tmpdir(), "kiln-stream-"))
const env = {
  ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Bench", GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench", GIT_COMMITTER_EMAIL: "bench@example.com"
}
const data = join(root, "data")
const location = { owner: "bench", name: "big" }

const gitAsync = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn("git", [...args], { cwd, env, stdio: ["ignore", "ignore", "inherit"] })
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")} exited ${code}`))))
  })

/** Runs `task`, sampling RSS every 20 ms; returns the peak growth over the RSS at the start. */
const peakGrowth = async (task: () => Promise<void>) => {
  globalThis.gc?.()
  const start = process.memoryUsage().rss
  let peak = start
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  const began = performance.now()
  await task()
  clearInterval(sampler)
  return { growth: (peak - start) / 1048576, seconds: (performance.now() - began) / 1000 }
}

try {
  const storage = await Effect.runPromise(makeGitStorage(data))
  await Effect.runPromise(storage.create(location, { defaultBranch: "main" }))
  const handler = makeSmartHttpHandler({
    authorize: async () => ({ kind: "allowed", path: repositoryPath(data, location) }),
    afterPush: async () => {}
  })
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench/big.git` // TCP server: AddressInfo

  const work = join(root, "work")
  mkdirSync(work)
  execFileSync("git", ["init", "-q", "-b", "main", work], { env })
  // Written by a child process so that the data never passes through this process's heap.
  for (let i = 0; i < mebibytes / 16; i++) {
    execFileSync("head", ["-c", String(16 * 1048576), "/dev/urandom"], { stdio: ["ignore", openSync(join(work, `blob-${i}.bin`), "w"), "inherit"] })
  }
  execFileSync("git", ["add", "-A"], { cwd: work, env })
  execFileSync("git", ["commit", "-q", "-m", "big"], { cwd: work, env })
  execFileSync("git", ["init", "-q", "--bare", join(root, "local.git")], { env })
  console.log(`payload: ${mebibytes} MiB of random bytes; server RSS before: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`)

  const local = await peakGrowth(() => gitAsync(["push", "-q", join(root, "local.git"), "main"], work))
  console.log(`push to a local bare repository (no HTTP, for scale): ${local.seconds.toFixed(1)} s`)
  const push = await peakGrowth(() => gitAsync(["push", "-q", url, "main"], work))
  console.log(`push:  ${push.seconds.toFixed(1)} s, server RSS peak growth ${push.growth.toFixed(1)} MiB`)
  const clone = await peakGrowth(() => gitAsync(["clone", "-q", "--bare", url, join(root, "clone.git")], root))
  console.log(`clone: ${clone.seconds.toFixed(1)} s, server RSS peak growth ${clone.growth.toFixed(1)} MiB`)
  await new Promise((resolve) => server.close(resolve))
} finally {
  rmSync(root, { recursive: true, force: true })
}
