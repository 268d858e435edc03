/** Forgejo's IsValidExternalURL and IsValidExternalTrackerURLFormat [modules/validation/helpers.go]. */
import { describe, expect, it } from "vitest"
import { isValidExternalTrackerFormat, isValidExternalUrl } from "../../src/org/HttpUrl.ts"

describe("isValidExternalUrl", () => {
  it.each([
    "https://tracker.example/issues",
    "http://tracker.example:8080/x?y=1",
    "https://user@tracker.example/",
    "http://10.0.0.1/",
    "http://[2001:db8::1]/",
    "http://128.0.0.1/"
  ])("accepts %s", (url) => {
    expect(isValidExternalUrl(url)).toBe(true)
  })

  it.each([
    "not a url",
    "ftp://tracker.example/",
    "http://localhost/",
    "http://LOCALHOST:3000/x",
    "http://127.0.0.1/",
    "http://127.1.2.3:8080/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]:3000/",
    "http://[::ffff:127.0.0.1]/",
    "http://tracker.example:port/"
  ])("refuses %s", (url) => {
    expect(isValidExternalUrl(url)).toBe(false)
  })
})

describe("isValidExternalTrackerFormat", () => {
  it.each([
    "https://tracker.example/{user}/{repo}/issues/{index}",
    "https://tracker.example/issues/{index}",
    "https://tracker.example/no-placeholders"
  ])("accepts %s", (format) => {
    expect(isValidExternalTrackerFormat(format)).toBe(true)
  })

  it.each([
    "https://tracker.example/{index/",
    "https://tracker.example/index}",
    "https://tracker.example/{user/{repo}",
    "http://localhost/{index}"
  ])("refuses %s", (format) => {
    expect(isValidExternalTrackerFormat(format)).toBe(false)
  })
})
