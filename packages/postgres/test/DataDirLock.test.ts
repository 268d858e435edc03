import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as DataDirLock from "../src/DataDirLock.ts"
import * as ChildProcess from "./fixtures/ChildProcess.ts"
import * as TempDirectory from "./TempDirectory.ts"

const lockFile = (directory: string) => Path.join(directory, DataDirLock.lockFileName)

describe("DataDirLock", () => {
  it.live("a second process is refused at once, naming the holder, and the holder keeps its lock", () =>
    Effect.gen(function*() {
      const directory = yield* TempDirectory.make
      const holder = yield* ChildProcess.start("holdDataDirLock.ts", [directory])
      const error = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(directory)))
      assert.strictEqual(error._tag, "DataDirInUse")
      assert.strictEqual(error.message, `data directory ${directory} is in use by process ${holder.pid}`)
      assert.strictEqual(Fs.readFileSync(lockFile(directory), "utf8").trim(), String(holder.pid))
    }))

  it.live("the lock of a process that is gone is taken over, and released with the scope", () =>
    Effect.gen(function*() {
      const directory = yield* TempDirectory.make
      const holder = yield* ChildProcess.start("holdDataDirLock.ts", [directory])
      yield* ChildProcess.kill(holder)
      // The killed process could not clean up: its lock file is still there.
      assert.strictEqual(Fs.readFileSync(lockFile(directory), "utf8").trim(), String(holder.pid))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(directory)
        assert.strictEqual(Fs.readFileSync(lockFile(directory), "utf8").trim(), String(process.pid))
      }))
      assert.isFalse(Fs.existsSync(lockFile(directory)))
    }))

  it.effect("a lock file with this process's pid but not held here is a leftover (pids repeat across restarts)", () =>
    Effect.gen(function*() {
      const directory = yield* TempDirectory.make
      Fs.writeFileSync(lockFile(directory), `${process.pid}\n`)
      yield* Effect.scoped(DataDirLock.acquire(directory))
      assert.isFalse(Fs.existsSync(lockFile(directory)))
    }))

  it.effect("is re-entrant within a process and released by the last holder", () =>
    Effect.gen(function*() {
      const directory = yield* TempDirectory.make
      yield* Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(directory)
        yield* Effect.scoped(DataDirLock.acquire(directory))
        assert.isTrue(Fs.existsSync(lockFile(directory)))
      }))
      assert.isFalse(Fs.existsSync(lockFile(directory)))
    }))
})
