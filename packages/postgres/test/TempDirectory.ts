// A real directory under the system temp dir, removed with the scope.
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

export const make = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-postgres-"))),
  (path) => Effect.sync(() => Fs.rmSync(path, { recursive: true, force: true }))
)
