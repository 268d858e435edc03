/**
 * V8's `gc` function without `--expose-gc` on the command line, so that however the server is
 * started it behaves the same: the flag set at run time exposes `gc` to contexts made afterwards.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

export interface CollectOptions {
  readonly type: "minor" | "major"
  readonly execution?: "sync" | "async"
  /** `last-resort`: collect until nothing more is freed, and give V8's unused pages back to the system. */
  readonly flavor?: "regular" | "last-resort"
}

export type CollectGarbage = (options: CollectOptions) => void

export const collectGarbage = (): CollectGarbage => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc")
}
