/**
 * Seeds accounts straight into a database through Kiln's application layer, while no server has it
 * open (the embedded database takes one process at a time). Migrates first, as the server would.
 */
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "@kiln/postgres/migrations"
import { type NewAccount, newAccount } from "@kiln/domain/user/User"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { UserStore } from "@kiln/domain/user/UserStore"
import * as Application from "../src/Application.ts"
import { clientLayer, type DatabaseLocation } from "./BenchDatabase.ts"
import type { Admin } from "./KilnServer.ts"

export const userName = (index: number): string => `bench-user-${String(index).padStart(5, "0")}`

const account = (name: string, now: number): NewAccount =>
  newAccount({
    name,
    kind: "individual",
    fullName: `Bench User ${name.slice(-5)}`,
    email: `${name}@bench.invalid`,
    loginName: name,
    createdAt: now
  })

/**
 * Creates the site administrator (as Kiln's start-up would on an empty database: the server only
 * does so when there are no users), then `count` users without passwords (they never sign in) in
 * one transaction straight through the store. Returns the users' names.
 */
export const seedUsers = (location: DatabaseLocation, admin: Admin, count: number): Promise<ReadonlyArray<string>> => {
  const names = Array.from({ length: count }, (_, index) => userName(index + 1))
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* UserAccounts
    const store = yield* UserStore
    yield* accounts.create({
      username: admin.username,
      email: admin.email,
      password: Redacted.make(admin.password),
      isAdmin: true,
      mustChangePassword: false
    })
    const now = Math.floor(Date.now() / 1000)
    yield* sql.withTransaction(Effect.forEach(names, (name) => store.insert(account(name, now), ""), { discard: true }))
    return names
  })
  const database = Migrations.layer.pipe(Layer.provideMerge(clientLayer(location)))
  // Closing the scope closes the database, which also flushes and unlocks the embedded one.
  return Effect.runPromise(program.pipe(Effect.provide(Application.layer.pipe(Layer.provideMerge(database)))))
}
