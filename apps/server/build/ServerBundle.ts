/**
 * The server as it is shipped: one bundle in `apps/server/dist/`, built by `pnpm build` (and by
 * `pnpm start`, the bench and the tests that start a server process).
 *
 * Run from its TypeScript sources, the server holds ~210 MB at rest on a PostgreSQL server: Node's
 * type stripper (~17 MB), the source text and module records of ~1,500 modules, and a young
 * generation grown during that start-up. Bundled it holds ~110-130 MB. PGlite, editorconfig and ssh2 stay
 * outside the bundle, resolved in the installed packages: they load WebAssembly and data files from
 * beside their own modules (ssh2: its optional native bindings).
 *
 * `dist/` holds `main.js` (the server), `kiln.js` (the command line, `pnpm kiln`: it starts in
 * about a third of the time its sources take), `RenderProcess.js` and `RenderThread.js` (the markdown
 * render process, which WorkerPool finds beside its own chunk, and the thread it hosts), `EditorConfigWorker.js` (found the same way by MatchingThread),
 * `GitLauncherProcess.py`, `.pl` and `.js` (the git launcher in Python, Perl and Node, found the same way by
 * GitLauncher) and `templates/`
 * (read by RepositoryTemplates from beside its chunk). `PgliteTemplates.js` is run once
 * after bundling: the embedded database's templates are then made before any server or restore
 * needs them.
 */
import { execFileSync } from "node:child_process"
import { cpSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const dist = at("../dist")

/** The bundled server's entry point. */
export const serverEntry = `${dist}/main.js`

/** The bundled command line's entry point. */
export const cliEntry = `${dist}/kiln.js`

export const bundleServer = async (): Promise<void> => {
  // Loaded here: starting from a bundle that is up to date (FreshBundle.ts) needs no bundler.
  const { build } = await import("rolldown")
  rmSync(dist, { recursive: true, force: true })
  await build({
    input: {
      // The version check first; the server is a chunk it imports once the check passed.
      main: at("../src/start.ts"),
      kiln: at("../src/cli/start.ts"),
      RenderProcess: at("../../../packages/markdown/src/worker/RenderProcess.ts"),
      RenderThread: at("../../../packages/markdown/src/worker/RenderThread.ts"),
      EditorConfigWorker: at("../src/platform/editorconfig/EditorConfigWorker.ts"),
      PgliteTemplates: at("./PgliteTemplates.ts"),
      GitLauncherProcess: at("../../../packages/git/src/launcher/GitLauncherProcess.ts")
    },
    platform: "node",
    external: [/^@electric-sql\/pglite(\/|$)/, "editorconfig", "ssh2"],
    logLevel: "warn",
    output: {
      dir: dist,
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: "[name]-[hash].js",
      sourcemap: true
    }
  })
  cpSync(at("../../../packages/git/src/templates"), `${dist}/templates`, { recursive: true })
  cpSync(at("../../../packages/git/src/launcher/GitLauncherProcess.pl"), `${dist}/GitLauncherProcess.pl`)
  cpSync(at("../../../packages/git/src/launcher/GitLauncherProcess.py"), `${dist}/GitLauncherProcess.py`)
  prepareTemplates()
}

/**
 * Makes the embedded database's templates for this bundle (PgliteTemplates.ts), when missing. A
 * failure is not the build's: the server makes them on first use, or runs initdb itself.
 */
export const prepareTemplates = (): void => {
  try {
    execFileSync(process.execPath, [`${dist}/PgliteTemplates.js`], { stdio: ["ignore", "inherit", "inherit"] })
  } catch (error) {
    process.stderr.write(`the embedded database's templates were not made now, they will be on first use: ${String(error)}\n`)
  }
}
