/**
 * The V8 flags the bundle's entry points run with. They must be on the command line (set at run
 * time, `--liftoff-only` is ignored by the WebAssembly compiler), so the process runs itself again
 * with them, under the same pid (`process.execve`), before anything else is loaded. A flag the
 * operator already gave either way is left as it is.
 *
 * - `--liftoff-only`: WebAssembly (PGlite, the embedded database) compiled by the baseline compiler
 *   alone, never by TurboFan. V8 tiers hot WebAssembly functions up in the background, and one of
 *   PGlite's (104,930 bytes of body, hot from the first queries) needs ~600 MB of compiler memory
 *   for that: measured with `--trace-wasm-compilation-times`, it made the embedded server peak at
 *   ~750 MB while starting on a data directory of 10,000 users and repositories, against ~230 MB
 *   without. Server CPU per API request was the same either way: what a request costs is mostly
 *   JavaScript, not PGlite's code. `--no-liftoff-only` brings TurboFan back.
 * - `--heap-growing-percent=100`: after a full collection, the old generation may grow to twice
 *   what survived before the next one. V8's own factor left a small heap (~30 MB alive) with ~12 MB
 *   of room, and a large transfer passes through more young memory than that: V8 started
 *   incremental marking again as soon as one collection ended, a mark-compact every ~50 ms, and a
 *   200 MB LFS upload or download spent ~45% of its CPU collecting (throughput ~0.3–0.4× a bare
 *   Node server's; `pnpm bench -- --only lfs`). With the flag: 70 → 10–17 full collections over the
 *   scenario; with BlobStorageLive's writes and reads, upload 0.84–0.93× and download 1.4–1.8× the
 *   bare server's, for up to ~15 MB more resident memory at a transfer's peak.
 * - `--no-allocation-site-pretenuring`: V8 allocates every object in the young generation, never
 *   straight into the old one on an allocation site's record of survivors. A request's objects live
 *   a few milliseconds, yet at times V8 judged their sites long-lived (once its young generation had
 *   grown to 16 MB under load) and pretenured them: every request's objects then went to the old
 *   generation, a mark-compact followed every ~0.6 s, each scavenge took ~10 ms instead of ~0.7, and
 *   the server's CPU per `/version` request rose ~35% (157–166 against 111–122 thousandths of a
 *   fixed probe task's, MachineProbe.ts), flipping between windows of one load. A sampling heap
 *   profile of that state found ~80 MB/s of request objects (IncomingMessage, ServerResponse, the
 *   request's services) collected by mark-compacts alone.
 */

interface ProcessFlag {
  readonly flag: string
  /** Whether the operator's own flags already decide it. */
  readonly given: (execArgv: ReadonlyArray<string>) => boolean
}

const flags: ReadonlyArray<ProcessFlag> = [
  { flag: "--liftoff-only", given: (execArgv) => execArgv.includes("--liftoff-only") || execArgv.includes("--no-liftoff-only") },
  {
    flag: "--heap-growing-percent=100",
    given: (execArgv) => execArgv.some((argument) => argument.startsWith("--heap-growing-percent"))
  },
  {
    flag: "--no-allocation-site-pretenuring",
    given: (execArgv) => execArgv.some((argument) => /^--(?:no-)?allocation[-_]site[-_]pretenuring$/.test(argument))
  }
]

/** Every flag above, as the server runs with them unless its operator decided otherwise. */
export const serverFlags: ReadonlyArray<string> = flags.map((flag) => flag.flag)

/**
 * The arguments (`argv[0]` first) of this process run again with the flags it lacks, or undefined
 * when its Node flags (`execArgv`) already decide every one.
 */
export const relaunchArguments = (
  execPath: string,
  execArgv: ReadonlyArray<string>,
  argv: ReadonlyArray<string>
): ReadonlyArray<string> | undefined => {
  const missing = flags.filter((flag) => !flag.given(execArgv)).map((flag) => flag.flag)
  return missing.length === 0 ? undefined : [execPath, ...missing, ...execArgv, ...argv.slice(1)]
}

/** Replaces this process by itself with the flags it lacks; a no-op where `execve` is missing. */
export const relaunchWithProcessFlags = (): void => {
  const args = relaunchArguments(process.execPath, process.execArgv, process.argv)
  if (args === undefined || typeof process.execve !== "function" || process.platform === "win32") return
  process.execve(process.execPath, [...args], process.env)
}
