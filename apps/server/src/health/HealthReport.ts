/**
 * Forgejo's health check document (routers/web/healthcheck, after draft-inadarei-api-health-check):
 * an overall `status`, a description, and per check a list of component statuses with the time
 * they were taken and, when failing, what went wrong.
 */
export type HealthStatus = "pass" | "fail"

export interface ComponentStatus {
  readonly status: HealthStatus
  /** RFC 3339, UTC. */
  readonly time: string
  /** Omitted when passing. */
  readonly output?: string
}

export interface HealthReport {
  readonly status: HealthStatus
  readonly description: string
  readonly checks: Readonly<Record<string, ReadonlyArray<ComponentStatus>>>
}

/** The report of named check outcomes: failing as soon as one check does. */
export const report = (description: string, checks: Readonly<Record<string, ComponentStatus>>): HealthReport => ({
  status: Object.values(checks).every((check) => check.status === "pass") ? "pass" : "fail",
  description,
  checks: Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, [check]]))
})

/** Forgejo's time format: RFC 3339 to the second, in UTC. */
export const timeOf = (millis: number): string => new Date(millis).toISOString().replace(/\.\d{3}Z$/, "Z")
