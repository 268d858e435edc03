/**
 * Cold against warm blob reads through GitStorage (isomorphic-git). A cold read opens the pack
 * index, loads the pack and verifies its checksum; a warm read finds all that in the repository's
 * cache. Run: npx pnpm@12.21.0 exec node packages/git/bench/blobRead.ts
 */
import { execFileSync, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, statSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { makeGitStorage } from "../src/GitStorageLive.ts"

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: tmpdir(), LC_ALL: "C" }
const root = mkdtempSync(join(tmpdir(), "kiln-bench-"))

/** A packed repository of `files` incompressible blobs of `bytes` each, in one commit on main. */
const makeRepository = (name: string, files: number, bytes: number) => {
  const gitdir = join(root, "bench", `${name}.git`)
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", gitdir], { env })
  const chunks: Array<Buffer> = []
  for (let i = 0; i < files; i++) {
    const data = Buffer.from(randomBytes(Math.ceil(bytes * 0.75)).toString("base64").slice(0, bytes))
    chunks.push(Buffer.from(`blob\nmark :${i + 1}\ndata ${data.length}\n`), data, Buffer.from("\n"))
  }
  const message = "bench\n"
  chunks.push(Buffer.from(
    `commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata ${message.length}\n${message}`
  ))
  for (let i = 0; i < files; i++) chunks.push(Buffer.from(`M 100644 :${i + 1} dir-${i % 50}/file-${i}.txt\n`))
  chunks.push(Buffer.from("\n"))
  const imported = spawnSync("git", ["--git-dir", gitdir, "fast-import", "--quiet"], { input: Buffer.concat(chunks), env })
  if (imported.status !== 0) throw new Error(imported.stderr.toString())
  execFileSync("git", ["--git-dir", gitdir, "repack", "-a", "-d", "-q"], { env })
  const packDir = join(gitdir, "objects", "pack")
  const packBytes = readdirSync(packDir).filter((f) => f.endsWith(".pack")).reduce((n, f) => n + statSync(join(packDir, f)).size, 0)
  return { location: { owner: "bench", name }, packBytes }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const p95 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN
const ms = (x: number) => `${x.toFixed(2)} ms`

const measure = Effect.fn(function*(name: string, files: number, bytes: number) {
  const { location, packBytes } = makeRepository(name, files, bytes)
  const path = (i: number) => `dir-${i % 50}/file-${i}.txt`
  const timed = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const start = performance.now()
      yield* effect
      return performance.now() - start
    })

  // Cold: a fresh adapter (empty caches) for each read, on a different file each time.
  const cold: Array<number> = []
  for (let i = 0; i < 10; i++) {
    const storage = yield* makeGitStorage(root)
    cold.push(yield* timed(Effect.gen(function*() {
      const commit = yield* storage.resolveCommit(location, "main")
      yield* storage.readFile(location, commit.id, path(i * 7))
    })))
  }

  // Warm: one adapter, after one read has filled its cache.
  const storage = yield* makeGitStorage(root)
  const head = yield* storage.resolveCommit(location, "main")
  yield* storage.readFile(location, head.id, path(0))
  const warm: Array<number> = []
  const warmResolve: Array<number> = []
  for (let i = 0; i < 200; i++) {
    warm.push(yield* timed(storage.readFile(location, head.id, path((i * 13) % files))))
    warmResolve.push(yield* timed(storage.resolveCommit(location, "main")))
  }
  console.log(
    `${name}: ${files} files x ${bytes} B, pack ${(packBytes / 1048576).toFixed(1)} MiB | ` +
      `cold resolve+read median ${ms(median(cold))} (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))}) | ` +
      `warm read median ${ms(median(warm))} p95 ${ms(p95(warm))} | warm resolveCommit median ${ms(median(warmResolve))}`
  )
})

const program = Effect.gen(function*() {
  // Warm up the JIT on a throwaway repository so that "cold" measures I/O, not compilation.
  yield* measure("jit-warmup", 50, 1024)
  yield* measure("small", 200, 4 * 1024)
  yield* measure("medium", 2_000, 10 * 1024)
  yield* measure("large", 2_000, 50 * 1024)
})

try {
  await Effect.runPromise(program)
} finally {
  rmSync(root, { recursive: true, force: true })
}
