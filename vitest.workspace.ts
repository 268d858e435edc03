// The project list. vitest 5 no longer reads this file by itself: vitest.config.ts imports it.
import { defineProject } from "vitest/config"

// isolate: false — a worker runs file after file with the modules it imported once: a fresh worker
// per file imported the server's module graph ~2 s each time, and the HTTP tests ran in 8m55s where
// they took 12m24s. Every test file closes what it opens (its server, database and processes as its
// layer's scope ends), so nothing a file leaves behind is seen by the next. Except in the heap: a file
// that measures its own process's memory or garbage collection (`*.isolated.test.ts`) runs in a
// fresh worker, because what earlier files allocated changes how V8 places and collects buffers
// (in a shared worker the ArrayBufferReclaimer test once saw none of its dead buffers collected).
const ISOLATED = "test/**/*.isolated.test.ts"

const project = (name: string, root: string, testTimeout = 10_000, globalSetup: ReadonlyArray<string> = []) => {
  const shared = { root, testTimeout, hookTimeout: 120_000, globalSetup: [...globalSetup] }
  return [
    defineProject({ test: { ...shared, name, include: ["test/**/*.test.ts"], exclude: [ISOLATED], isolate: false } }),
    defineProject({ test: { ...shared, name: `${name} (isolated)`, include: [ISOLATED], isolate: true } })
  ]
}

/** The projects whose tests open a database: the ones a run on a PostgreSQL server repeats. */
const withDatabase = [
  ...project("postgres", "packages/postgres", 60_000),
  ...project("server", "apps/server", 60_000, ["test/support/globalSetup.ts"])
]

const withoutDatabase = [
  ...project("domain", "packages/domain"),
  ...project("git", "packages/git", 60_000),
  ...project("markdown", "packages/markdown", 30_000),
  ...project("openpgp", "packages/openpgp", 30_000),
  ...project("blobs", "packages/blobs", 30_000),
  ...project("example", "apps/example-portal", 600_000)
]

// On a PostgreSQL server (KILN_TEST_DATABASE_URL) the projects that never open a database would
// only repeat the embedded run's work, byte for byte: a CI run runs them once.
export default process.env["KILN_TEST_DATABASE_URL"] ? withDatabase : [...withDatabase, ...withoutDatabase]
