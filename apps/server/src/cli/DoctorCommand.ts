/**
 * `pnpm kiln doctor [--fix]`: the consistency check (doctor/Doctor.ts) on the configured data
 * directory and database. Exit status 0 when every check is clean, 1 when anything was found
 * (repaired or not). On the embedded database the server must be stopped.
 */
import { resolve } from "node:path"
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as RepositoryInventorySql from "@kiln/postgres/stores/RepositoryInventorySql"
import * as Application from "../Application.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as KilnConfigLayer from "../config/KilnConfig.ts"
import * as Database from "../Database.ts"
import { checks } from "../doctor/Doctor.ts"
import { userFacing } from "./CommandFailure.ts"

const EXAMPLES = 5

export const doctorCommand = Command.make(
  "doctor",
  {
    fix: Flag.Boolean("fix").pipe(Flag.withDescription("Repair what is safe; list what needs a decision"), Flag.withDefault(false)),
    graceMinutes: Flag.Int("grace-minutes").pipe(
      Flag.withDescription("Files without a row younger than this are left alone (uploads in progress)"),
      Flag.withDefault(60)
    )
  },
  Effect.fnUntraced(function*(flags) {
    const config = yield* KilnConfig
    const results = yield* checks({ dataDir: resolve(config.dataDir), graceMillis: Math.max(0, flags.graceMinutes) * 60_000 })
    let found = 0
    for (const check of results) {
      if (check.problems.length === 0) {
        yield* Console.log(`ok    ${check.check}: 0`)
        continue
      }
      found++
      yield* Console.log(`FOUND ${check.check}: ${check.problems.length}`)
      for (const example of check.problems.slice(0, EXAMPLES)) yield* Console.log(`        ${example}`)
      if (check.problems.length > EXAMPLES) yield* Console.log(`        … and ${check.problems.length - EXAMPLES} more`)
      if (flags.fix && Option.isSome(check.repair)) {
        yield* Console.log(`      fixed: ${yield* check.repair.value}`)
      } else if (Option.isSome(check.decision)) {
        yield* Console.log(`      needs a decision: ${check.decision.value}`)
      } else if (Option.isSome(check.repair)) {
        yield* Console.log("      repairable with --fix")
      }
    }
    yield* Console.log(found === 0 ? "clean" : `${found} of ${results.length} checks found problems`)
    if (found > 0) yield* Effect.sync(() => (process.exitCode = 1))
  }, Effect.provide(Layer.merge(Application.layer, RepositoryInventorySql.layer).pipe(Layer.provideMerge(Database.layer))), Effect.provide(KilnConfigLayer.layer), userFacing("doctor"))
).pipe(Command.withDescription("Check the database and the data directory against each other"))
