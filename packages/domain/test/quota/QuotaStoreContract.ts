// The QuotaStore contract as a test suite, to run against every implementation (the SQL store too:
// `quotaStoreContract("postgres", layer, { users: [id1, id2] })`). Each test builds the layer afresh, so it
// must start from a store with no rules and no groups; `users` are two existing user ids.
import { assert, describe, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect } from "effect"
import type { QuotaRule } from "../../src/quota/QuotaRule.ts"
import { QuotaStore } from "../../src/quota/QuotaStore.ts"
import { emptyUsage } from "../../src/quota/Usage.ts"

const rule = (name: string, limit: number, subjects: QuotaRule["subjects"] = []): QuotaRule => ({ name, limit, subjects })

export const quotaStoreContract = (
  name: string,
  layer: Layer.Layer<QuotaStore>,
  options: { readonly users: readonly [number, number] }
) => {
  const [alice, bob] = options.users
  const test = (title: string, body: (store: QuotaStore["Service"]) => Effect.Effect<void, unknown>) =>
    it.effect(title, () =>
      Effect.gen(function*() {
        yield* body(yield* QuotaStore)
      }).pipe(Effect.provide(layer)))

  describe(`QuotaStore contract: ${name}`, () => {
    test("rules are created, read by name and listed by name", (store) =>
      Effect.gen(function*() {
        yield* store.createRule(rule("b-rule", 1024, ["size:all", "size:git:lfs"]))
        yield* store.createRule(rule("a-rule", -1))
        yield* store.createRule(rule("B-rule", 0, ["size:wiki"]))
        assert.deepStrictEqual(yield* store.getRule("b-rule"), rule("b-rule", 1024, ["size:all", "size:git:lfs"]))
        assert.deepStrictEqual((yield* store.listRules).map((r) => r.name), ["B-rule", "a-rule", "b-rule"])
        const taken = yield* Effect.flip(store.createRule(rule("a-rule", 5)))
        assert.strictEqual(taken._tag, "AlreadyExists")
        assert.strictEqual(taken.message, "rule already exists: [name: a-rule]")
        assert.strictEqual((yield* store.getRule("a-rule")).limit, -1)
        const missing = yield* Effect.flip(store.getRule("A-RULE"))
        assert.strictEqual(missing.message, "rule not found: [name: A-RULE]")
      }))

    test("an edit changes only the fields it carries (QM-07)", (store) =>
      Effect.gen(function*() {
        yield* store.createRule(rule("deny-all", 0, ["size:all"]))
        assert.deepStrictEqual(yield* store.editRule("deny-all", { limit: 1024 }), rule("deny-all", 1024, ["size:all"]))
        assert.deepStrictEqual(yield* store.editRule("deny-all", {}), rule("deny-all", 1024, ["size:all"]))
        assert.deepStrictEqual(
          yield* store.editRule("deny-all", { subjects: ["size:repos:all"] }),
          rule("deny-all", 1024, ["size:repos:all"])
        )
        assert.deepStrictEqual(yield* store.getRule("deny-all"), rule("deny-all", 1024, ["size:repos:all"]))
        assert.strictEqual((yield* Effect.flip(store.editRule("nope", { limit: 1 }))).message, "rule not found: [name: nope]")
      }))

    test("deleting a rule removes it from its groups (QM-06)", (store) =>
      Effect.gen(function*() {
        yield* store.createGroup({ name: "g", rules: [rule("deny-all", 0, ["size:all"])] })
        yield* store.deleteRule("deny-all")
        assert.deepStrictEqual(yield* store.getGroup("g"), { name: "g", rules: [] })
        assert.deepStrictEqual(yield* store.listRules, [])
        assert.strictEqual((yield* Effect.flip(store.deleteRule("deny-all"))).message, "rule not found: [name: deny-all]")
      }))

    test("a new group creates unknown rules and reuses known ones unchanged (QM-02)", (store) =>
      Effect.gen(function*() {
        yield* store.createRule(rule("unlimited", -1, ["size:all"]))
        yield* store.createRule(rule("deny-git-lfs", 0, ["size:git:lfs"]))
        const created = yield* store.createGroup({
          name: "group-with-rules",
          rules: [rule("unlimited", 0), rule("deny-git-lfs", -1), rule("new-rule", 0, ["size:assets:all"])]
        })
        const expected = {
          name: "group-with-rules",
          rules: [
            rule("deny-git-lfs", 0, ["size:git:lfs"]),
            rule("new-rule", 0, ["size:assets:all"]),
            rule("unlimited", -1, ["size:all"])
          ]
        }
        assert.deepStrictEqual(created, expected)
        assert.deepStrictEqual(yield* store.getGroup("group-with-rules"), expected)
        assert.deepStrictEqual(yield* store.getRule("new-rule"), rule("new-rule", 0, ["size:assets:all"]))
      }))

    test("creating a group is all or nothing", (store) =>
      Effect.gen(function*() {
        yield* store.createGroup({ name: "default", rules: [] })
        const taken = yield* Effect.flip(store.createGroup({ name: "default", rules: [rule("fresh", 1)] }))
        assert.strictEqual(taken.message, "group already exists: [name: default]")
        const twice = yield* Effect.flip(store.createGroup({ name: "other", rules: [rule("x", 1), rule("x", 2)] }))
        assert.strictEqual(twice._tag, "AlreadyExists")
        assert.strictEqual(twice.message, "rule already in group: [group: other, rule: x]")
        assert.deepStrictEqual(yield* store.listRules, [])
        assert.deepStrictEqual((yield* store.listGroups).map((g) => g.name), ["default"])
      }))

    test("groups are listed by name with their rules by name; deleting keeps the rules (QM-10, QM-14)", (store) =>
      Effect.gen(function*() {
        yield* store.createGroup({ name: "b", rules: [rule("z", 1), rule("y", 2)] })
        yield* store.createGroup({ name: "a", rules: [] })
        assert.deepStrictEqual(yield* store.listGroups, [
          { name: "a", rules: [] },
          { name: "b", rules: [rule("y", 2), rule("z", 1)] }
        ])
        yield* store.addUserToGroup("b", alice)
        yield* store.deleteGroup("b")
        assert.deepStrictEqual((yield* store.listGroups).map((g) => g.name), ["a"])
        assert.deepStrictEqual((yield* store.listRules).map((r) => r.name), ["y", "z"])
        assert.deepStrictEqual(yield* store.groupsOf(alice), [])
        assert.strictEqual((yield* Effect.flip(store.deleteGroup("b"))).message, "group not found: [group: b]")
        assert.strictEqual((yield* Effect.flip(store.getGroup("b"))).message, "group not found: [group: b]")
      }))

    test("rules are added to and removed from groups (QM-11, QM-12)", (store) =>
      Effect.gen(function*() {
        yield* store.createGroup({ name: "default", rules: [] })
        yield* store.createRule(rule("deny-all", 0, ["size:all"]))
        yield* store.createRule(rule("other", 5))
        yield* store.addRuleToGroup("default", "deny-all")
        assert.deepStrictEqual(yield* store.getGroup("default"), { name: "default", rules: [rule("deny-all", 0, ["size:all"])] })
        const twice = yield* Effect.flip(store.addRuleToGroup("default", "deny-all"))
        assert.strictEqual(twice.message, "rule already in group: [group: default, rule: deny-all]")
        assert.strictEqual((yield* Effect.flip(store.addRuleToGroup("nope", "nope"))).message, "group not found: [group: nope]")
        assert.strictEqual((yield* Effect.flip(store.addRuleToGroup("default", "nope"))).message, "rule not found: [name: nope]")
        const notIn = yield* Effect.flip(store.removeRuleFromGroup("default", "other"))
        assert.strictEqual(notIn._tag, "NotFound")
        assert.strictEqual(notIn.message, "rule not in group: [group: default, rule: other]")
        yield* store.removeRuleFromGroup("default", "deny-all")
        assert.deepStrictEqual(yield* store.getGroup("default"), { name: "default", rules: [] })
        assert.strictEqual(
          (yield* Effect.flip(store.removeRuleFromGroup("default", "nope"))).message,
          "rule not found: [name: nope]"
        )
      }))

    test("users are added to and removed from groups (QM-15, QM-16, QM-17)", (store) =>
      Effect.gen(function*() {
        yield* store.createGroup({ name: "default", rules: [] })
        yield* store.addUserToGroup("default", bob)
        yield* store.addUserToGroup("default", alice)
        assert.deepStrictEqual(yield* store.listUsersInGroup("default"), [alice, bob].sort((x, y) => x - y))
        const twice = yield* Effect.flip(store.addUserToGroup("default", alice))
        assert.strictEqual(twice.message, `user already in group: [group: default, userID: ${alice}]`)
        assert.deepStrictEqual((yield* store.groupsOf(alice)).map((g) => g.name), ["default"])
        yield* store.removeUserFromGroup("default", alice)
        assert.deepStrictEqual(yield* store.groupsOf(alice), [])
        const notIn = yield* Effect.flip(store.removeUserFromGroup("default", alice))
        assert.strictEqual(notIn.message, `user not in group: [group: default, userID: ${alice}]`)
        assert.strictEqual((yield* Effect.flip(store.addUserToGroup("nope", alice))).message, "group not found: [group: nope]")
        assert.strictEqual((yield* Effect.flip(store.listUsersInGroup("nope"))).message, "group not found: [group: nope]")
      }))

    test("setting a user's groups replaces them, all or nothing (QM-18)", (store) =>
      Effect.gen(function*() {
        for (const g of ["default", "test-1", "test-2"]) yield* store.createGroup({ name: g, rules: [] })
        yield* store.addUserToGroup("test-2", bob)
        yield* store.setUserGroups(alice, ["test-2", "default", "test-1", "default"])
        assert.deepStrictEqual((yield* store.groupsOf(alice)).map((g) => g.name), ["default", "test-1", "test-2"])
        const unknown = yield* Effect.flip(store.setUserGroups(alice, ["test-1", "missing", "gone"]))
        assert.strictEqual(unknown._tag, "Invalid")
        assert.strictEqual(unknown.message, "group not found: [group: missing]")
        assert.deepStrictEqual((yield* store.groupsOf(alice)).map((g) => g.name), ["default", "test-1", "test-2"])
        yield* store.setUserGroups(alice, ["test-1"])
        assert.deepStrictEqual((yield* store.groupsOf(alice)).map((g) => g.name), ["test-1"])
        yield* store.setUserGroups(alice, [])
        assert.deepStrictEqual(yield* store.groupsOf(alice), [])
        assert.deepStrictEqual((yield* store.groupsOf(bob)).map((g) => g.name), ["test-2"])
      }))

    test("an owner that stores nothing has zero usage and empty lists (QM-04)", (store) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* store.usageOf(alice), emptyUsage)
        const page = { page: 1, limit: 30 }
        assert.deepStrictEqual(yield* store.listAttachments(alice, page), { items: [], total: 0 })
        assert.deepStrictEqual(yield* store.listPackages(alice, page), { items: [], total: 0 })
        assert.deepStrictEqual(yield* store.listArtifacts(alice, page), { items: [], total: 0 })
      }))
  })
}
