/** Whose temporary entries a start may reap (WorkOwner.isGone), for each kind of owner. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as WorkOwner from "../../src/coordination/WorkOwner.ts"

const scope = WorkOwner.processScope({ bootId: "boot-1", pidNamespace: "pid:[4026531836]", machineId: "m1" })
const self = WorkOwner.make("web-1", scope, 100, "aaaa0001")
const recent = 60_000
const old = WorkOwner.maxAgeMillis + 1
const alive = (pids: ReadonlyArray<number>) => (pid: number) => pids.includes(pid)

describe("WorkOwner", () => {
  it("round-trips through its tag, which is one path-safe word; tags without a scope still parse", () => {
    const owner = WorkOwner.make("my host/1", "0a1b2c3d", 42, "0badc0de")
    assert.strictEqual(WorkOwner.tag(owner), "my_host_1~0a1b2c3d~42~0badc0de")
    assert.deepStrictEqual(WorkOwner.parse(WorkOwner.tag(owner)), owner)
    assert.deepStrictEqual(WorkOwner.parse("web-1~12345678~00112233"), { host: "web-1", scope: "", pid: 12345678, instance: "00112233" })
    assert.isUndefined(WorkOwner.parse("uploads"))
    fc.assert(fc.property(fc.stringMatching(/^[a-z0-9.-]{1,20}$/), fc.integer({ min: 1, max: 2 ** 22 }), fc.stringMatching(/^[0-9a-f]{8}$/), (host, pid, instance) => {
      const made = WorkOwner.make(host, scope, pid, instance)
      assert.deepStrictEqual(WorkOwner.parse(WorkOwner.tag(made)), made)
    }))
  })

  it("a scope is 8 hex digits, different for another boot, pid namespace or machine", () => {
    assert.match(scope, /^[0-9a-f]{8}$/)
    const others = [
      { bootId: "boot-2", pidNamespace: "pid:[4026531836]", machineId: "m1" },
      { bootId: "boot-1", pidNamespace: "pid:[4026532201]", machineId: "m1" },
      { bootId: "boot-1", pidNamespace: "pid:[4026531836]", machineId: "m2" }
    ]
    for (const facts of others) assert.notStrictEqual(WorkOwner.processScope(facts), scope)
  })

  it("reaps this host's dead processes and earlier instances of its own pid, never a live process's recent work", () => {
    const facts = (ageMillis: number) => ({ isAlive: alive([100, 200]), ageMillis })
    assert.isFalse(WorkOwner.isGone(self, self, facts(old)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", scope, 100, "aaaa0000"), self, facts(recent)))
    assert.isFalse(WorkOwner.isGone(WorkOwner.make("web-1", scope, 200, "bbbb0000"), self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", scope, 300, "cccc0000"), self, facts(recent)))
    // A pid taken over by an unrelated long-running process: its entries go after the age limit.
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", scope, 200, "bbbb0000"), self, facts(old)))
  })

  it("a container beside this one (same host name, same pid, another pid namespace) is not reaped while recent (review 4b30e64, finding 32)", () => {
    const facts = (ageMillis: number) => ({ isAlive: alive([1]), ageMillis })
    const container = WorkOwner.processScope({ bootId: "boot-1", pidNamespace: "pid:[4026532999]", machineId: "m1" })
    const me = WorkOwner.make("web-1", scope, 1, "aaaa0001")
    const neighbour = WorkOwner.make("web-1", container, 1, "bbbb0002")
    assert.isFalse(WorkOwner.isGone(neighbour, me, facts(recent)))
    assert.isTrue(WorkOwner.isGone(neighbour, me, facts(old)))
    // An entry made before scopes were recorded is treated as another table's too.
    assert.isFalse(WorkOwner.isGone(WorkOwner.parse("web-1~1~cccc0003"), me, facts(recent)))
  })

  it("reaps other hosts' entries and unowned ones only after the age limit", () => {
    const facts = (ageMillis: number) => ({ isAlive: alive([]), ageMillis })
    assert.isFalse(WorkOwner.isGone(WorkOwner.make("web-2", scope, 300, "dddd0000"), self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-2", scope, 300, "dddd0000"), self, facts(old)))
    assert.isFalse(WorkOwner.isGone(undefined, self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(undefined, self, facts(old)))
  })
})
