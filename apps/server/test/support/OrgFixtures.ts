/** Organizations and teams set up over HTTP for the organization tests. */
import { Effect } from "effect"
import { at, type Auth, request, type TestResponse } from "./TestServer.ts"

const expect = (what: string, status: number) => (response: TestResponse) =>
  response.status === status
    ? Effect.succeed(response)
    : Effect.die(new Error(`${what}: expected ${status}, got ${response.status} ${response.text}`))

/** `POST /orgs` as `auth`; the Organization JSON. */
export const createOrg = (auth: Auth, username: string, extra: Record<string, unknown> = {}) =>
  Effect.map(
    Effect.flatMap(request("POST", "/api/v1/orgs", { auth, json: { username, ...extra } }), expect(`creating ${username}`, 201)),
    (response) => response.body
  )

/** `POST /orgs/{org}/teams`; the new team's id. */
export const createTeam = (auth: Auth, org: string, body: Record<string, unknown>) =>
  Effect.map(
    Effect.flatMap(request("POST", `/api/v1/orgs/${org}/teams`, { auth, json: body }), expect(`team in ${org}`, 201)),
    (response) => Number(at(response.body, "id"))
  )

/** The id of the organization's Owners team. */
export const ownersTeamId = (auth: Auth, org: string) =>
  Effect.gen(function*() {
    const response = yield* Effect.flatMap(request("GET", `/api/v1/orgs/${org}/teams`, { auth }), expect(`teams of ${org}`, 200))
    const owners = (response.body as ReadonlyArray<unknown>).find((team) => at(team, "name") === "Owners")
    return Number(at(owners, "id"))
  })

/** `PUT /teams/{id}/members/{username}`. */
export const addToTeam = (auth: Auth, teamId: number, username: string) =>
  Effect.asVoid(Effect.flatMap(
    request("PUT", `/api/v1/teams/${teamId}/members/${username}`, { auth }),
    expect(`adding ${username} to team ${teamId}`, 204)
  ))

/** The `login` of each user in a User JSON list. */
export const logins = (body: unknown): ReadonlyArray<unknown> => (body as ReadonlyArray<unknown>).map((user) => at(user, "login"))

/** The `name` of each item in a JSON list. */
export const names = (body: unknown): ReadonlyArray<unknown> => (body as ReadonlyArray<unknown>).map((item) => at(item, "name"))
