/**
 * The bundle is made again only when something it is made from changed since: `pnpm start` and
 * `pnpm kiln` then start from it at once, and a checkout that was edited, pulled or reinstalled
 * gets a new one. "Changed" is a newer modification time than the bundle's entry points under the
 * workspace's sources, its build scripts, its package manifests or the lockfile.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { bundleServer, cliEntry, serverEntry } from "./ServerBundle.ts"

const workspace = fileURLToPath(new URL("../../../", import.meta.url))

/** The directories and files a bundle is made from. */
const inputs = (): ReadonlyArray<string> => [
  Path.join(workspace, "apps", "server", "src"),
  Path.join(workspace, "apps", "server", "build"),
  Path.join(workspace, "apps", "server", "package.json"),
  Path.join(workspace, "pnpm-lock.yaml"),
  ...Fs.readdirSync(Path.join(workspace, "packages")).flatMap((name) => [
    Path.join(workspace, "packages", name, "src"),
    Path.join(workspace, "packages", name, "package.json")
  ])
]

/** The newest modification time under `path`, or 0 when it does not exist. */
const newest = (path: string): number => {
  const stat = Fs.statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  return Fs.readdirSync(path).reduce((latest, name) => Math.max(latest, newest(Path.join(path, name))), stat.mtimeMs)
}

const builtAt = (): number =>
  Math.min(...[serverEntry, cliEntry].map((entry) => Fs.statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0))

export const isFresh = (): boolean => {
  const built = builtAt()
  return built > 0 && inputs().every((input) => newest(input) < built)
}

/** Bundles when the bundle is missing or older than what it is made from. */
export const ensureFreshBundle = async (): Promise<void> => {
  if (!isFresh()) await bundleServer()
}
