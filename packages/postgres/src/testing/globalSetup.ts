/**
 * vitest globalSetup (root vitest.config.ts): makes the PGlite template once per run, before any
 * worker starts, and hands its path to the tests. Skipped when tests use a real server.
 */
import type { TestProject } from "vitest/node"
import * as PgliteTemplate from "../PgliteTemplate.ts"

declare module "vitest" {
  interface ProvidedContext {
    /** Path of the PGlite template tar; absent when tests run against a real server. */
    kilnPgliteSnapshot?: string
  }
}

export default async function setup(project: TestProject): Promise<void> {
  if (process.env["KILN_TEST_DATABASE_URL"]) return
  project.provide("kilnPgliteSnapshot", await PgliteTemplate.ensure())
}
