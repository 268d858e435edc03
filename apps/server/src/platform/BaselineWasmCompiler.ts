/**
 * Runs the bundle's entry points with V8's `--liftoff-only`: WebAssembly (PGlite, the embedded
 * database) compiled by the baseline compiler alone, never by TurboFan.
 *
 * V8 tiers hot WebAssembly functions up to TurboFan in the background. One of PGlite's functions
 * (104,930 bytes of body, hot from the first queries) needs ~600 MB of compiler memory for that:
 * measured with `--trace-wasm-compilation-times`, it made the embedded server's resident memory
 * peak at ~750 MB while starting on a data directory of 10,000 users and repositories, against
 * ~230 MB with `--liftoff-only` (and ~265 against ~220 MB once idle). Server CPU per API request
 * was the same either way (within the noise of a shared machine): what a request costs is mostly
 * JavaScript, not PGlite's code.
 *
 * The flag must be on the command line: set at run time (`v8.setFlagsFromString`) it is ignored by
 * the WebAssembly compiler. So the process runs itself again with it, under the same pid
 * (`process.execve`), before anything else is loaded. An operator who wants TurboFan anyway passes
 * `--no-liftoff-only`, which is left as it is.
 */

const FLAG = "--liftoff-only"
const OPPOSITE = "--no-liftoff-only"

/**
 * The arguments (`argv[0]` first) of this process run again with the flag, or undefined when its
 * Node flags (`execArgv`) already say either way.
 */
export const relaunchArguments = (
  execPath: string,
  execArgv: ReadonlyArray<string>,
  argv: ReadonlyArray<string>
): ReadonlyArray<string> | undefined =>
  execArgv.includes(FLAG) || execArgv.includes(OPPOSITE) ? undefined : [execPath, FLAG, ...execArgv, ...argv.slice(1)]

/** Replaces this process by itself with the flag, when it lacks it; a no-op where `execve` is missing. */
export const relaunchWithBaselineWasmCompiler = (): void => {
  const args = relaunchArguments(process.execPath, process.execArgv, process.argv)
  if (args === undefined || typeof process.execve !== "function" || process.platform === "win32") return
  process.execve(process.execPath, [...args], process.env)
}
