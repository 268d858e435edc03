import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // A test file spends about 40% of its time waiting on the processes it starts (servers, git,
    // ssh): vitest's default (one core left free) ran one file at a time on a 2-core machine, with
    // a core idle. Every core runs one: 12 minutes where that took 20, on the same machine.
    maxWorkers: "100%",
    // Once per run for every project, in order: the programs of the machine the tests run (installed
    // or asked for before any test starts), the PGlite snapshot that TestDatabase restores per test file.
    globalSetup: ["testing/SystemPrograms.ts", "packages/postgres/src/testing/globalSetup.ts"]
  }
})
