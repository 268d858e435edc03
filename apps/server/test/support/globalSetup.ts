/**
 * vitest globalSetup of the server project: bundles the server once per run, so that the tests
 * starting a server process (support/ServerProcess.ts) run it as it is shipped.
 */
import { bundleServer } from "../../build/ServerBundle.ts"

export default async function setup(): Promise<void> {
  await bundleServer()
}
