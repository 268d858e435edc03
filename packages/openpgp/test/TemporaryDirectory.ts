/** A fresh directory under the OS temp dir, removed when the test's scope closes. */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"

export const temporaryDirectory = (prefix: string) =>
  Effect.acquireRelease(
    Effect.promise(() => mkdtemp(join(tmpdir(), `kiln-${prefix}-`))),
    (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
  )
