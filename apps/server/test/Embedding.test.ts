/**
 * Kiln embedded the way another Node service would: the domain services over the Postgres
 * adapter, with no HTTP server in sight.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { pageRequest } from "@kiln/domain/Paging"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { UserStore } from "@kiln/domain/user/UserStore"
import { ApplicationLive } from "./support/TestServer.ts"

layer(ApplicationLive, { timeout: "60 seconds" })("Kiln as a library", (it) => {
  it.effect("creates a user and reads it back through the domain services", () =>
    Effect.gen(function*() {
      const accounts = yield* UserAccounts
      const created = yield* accounts.create({
        username: "Embedded",
        email: "embedded@example.com",
        password: Redacted.make("password1"),
        mustChangePassword: false
      })
      assert.strictEqual(created.name, "Embedded")
      assert.strictEqual(created.lowerName, "embedded")

      const found = yield* accounts.byName("EMBEDDED")
      assert.strictEqual(found.id, created.id)
      const store = yield* UserStore
      assert.isTrue(Option.isSome(yield* store.passwordHash(created.id)))
      const page = yield* accounts.list({ sort: "alphabetically", page: pageRequest(1, 10) })
      assert.deepStrictEqual(page.items.map((user) => user.name), ["Embedded"])

      const duplicate = yield* Effect.flip(
        accounts.create({ username: "embedded", email: "other@example.com", password: Redacted.make("password1") })
      )
      assert.strictEqual(duplicate._tag, "AlreadyExists")
      assert.strictEqual(duplicate.message, "user already exists [name: embedded]")
    }))
})
