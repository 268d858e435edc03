import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // Once per run for every project: the PGlite snapshot that TestDatabase restores per test file.
    globalSetup: ["packages/postgres/src/testing/globalSetup.ts"]
  }
})
