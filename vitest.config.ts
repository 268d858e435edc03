import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // Once per run for every project, in order: the programs of the machine the tests run (installed
    // or asked for before any test starts), the PGlite snapshot that TestDatabase restores per test file.
    globalSetup: ["testing/SystemPrograms.ts", "packages/postgres/src/testing/globalSetup.ts"]
  }
})
