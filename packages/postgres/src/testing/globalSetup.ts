/**
 * vitest globalSetup (root vitest.config.ts): makes the PGlite snapshot once per run, before any
 * worker starts, and hands its path to the tests. Skipped when tests use a real server.
 */
import type { TestProject } from "vitest/node"
import * as PgliteSnapshot from "./PgliteSnapshot.ts"

export default async function setup(project: TestProject): Promise<void> {
  if (process.env["KILN_TEST_DATABASE_URL"]) return
  project.provide("kilnPgliteSnapshot", await PgliteSnapshot.ensure())
}
