/** Whose temporary entries a start may reap (WorkOwner.isGone), for each kind of owner. */
import { assert, describe, it } from "@effect/vitest"
import * as WorkOwner from "../../src/coordination/WorkOwner.ts"

const self = WorkOwner.make("web-1", 100, "aaaa0001")
const recent = 60_000
const old = WorkOwner.maxAgeMillis + 1
const alive = (pids: ReadonlyArray<number>) => (pid: number) => pids.includes(pid)

describe("WorkOwner", () => {
  it("round-trips through its tag, which is one path-safe word", () => {
    const owner = WorkOwner.make("my host/1", 42, "0badc0de")
    assert.strictEqual(WorkOwner.tag(owner), "my_host_1~42~0badc0de")
    assert.deepStrictEqual(WorkOwner.parse(WorkOwner.tag(owner)), owner)
    assert.isUndefined(WorkOwner.parse("uploads"))
  })

  it("reaps this host's dead processes and earlier instances of its own pid, never a live process's recent work", () => {
    const facts = (ageMillis: number) => ({ isAlive: alive([100, 200]), ageMillis })
    assert.isFalse(WorkOwner.isGone(self, self, facts(old)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", 100, "aaaa0000"), self, facts(recent)))
    assert.isFalse(WorkOwner.isGone(WorkOwner.make("web-1", 200, "bbbb0000"), self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", 300, "cccc0000"), self, facts(recent)))
    // A pid taken over by an unrelated long-running process: its entries go after the age limit.
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-1", 200, "bbbb0000"), self, facts(old)))
  })

  it("reaps other hosts' entries and unowned ones only after the age limit", () => {
    const facts = (ageMillis: number) => ({ isAlive: alive([]), ageMillis })
    assert.isFalse(WorkOwner.isGone(WorkOwner.make("web-2", 300, "dddd0000"), self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(WorkOwner.make("web-2", 300, "dddd0000"), self, facts(old)))
    assert.isFalse(WorkOwner.isGone(undefined, self, facts(recent)))
    assert.isTrue(WorkOwner.isGone(undefined, self, facts(old)))
  })
})
