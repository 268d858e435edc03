/**
 * Issue 28, item 7: git over SSH through Kiln's built-in server against OpenSSH's `sshd` running
 * `git-upload-pack`/`git-receive-pack` on the same repository, in the same run. The git scenario's
 * generated repository (2,000 files, 300 commits, one pack) is pushed to Kiln; it is then cloned
 * over Kiln's SSH and over sshd from Kiln's own copy on disk, and pushed whole into fresh
 * repositories through each. Also measured: one SSH round trip (key exchange, public-key sign-in,
 * one exec) against each server, and the CPU and resident memory of Kiln's process during the
 * clones. sshd runs as this user on a free port with a configuration of its own (needs
 * /usr/sbin/sshd: openssh-server). Targets: clone ≤ 1.3× sshd's, push ≤ 1.5×.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { ChildServer } from "../ChildServer.ts"
import { freePort } from "../FreePort.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { below, type BenchSettings, type DatabaseReport, type Scenario, type TargetCheck } from "../Scenario.ts"
import { processDelta, sampleProcess, totalSeconds } from "../ThreadCpu.ts"
import { generate, gitEnv, reportSmallOperations, smallOperations } from "./GitScenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const RUNS = 5
const ROUND_TRIPS = 10
const SSHD = "/usr/sbin/sshd"

const run = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd?: string) =>
  new Promise<string>((resolve, reject) => {
    const child = ChildProcess.spawn(command, [...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString("utf8")) : reject(new Error(`${command} ${args.slice(0, 4).join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").slice(-2_000)}`)))
  })

/** Runs and ignores the exit status (a refused command is a measured round trip too). */
const runAnyway = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => run(command, args, env).catch(() => "")

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await work()
  return performance.now() - started
}

const list = (values: ReadonlyArray<number>) => `[${values.map((ms) => ms.toFixed(0)).join(", ")}]`

const rssMb = (pid: number): number => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  return match === null ? 0 : Number(match[1]) / 1024
}

/** sshd on `port` for this user, with `authorizedKey` only; stopped by the returned function. */
const startSshd = async (directory: string, port: number, authorizedKey: string) => {
  const hostKey = Path.join(directory, "ssh_host_ed25519_key")
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey], process.env)
  const authorized = Path.join(directory, "authorized_keys")
  Fs.writeFileSync(authorized, `${authorizedKey}\n`, { mode: 0o600 })
  const config = Path.join(directory, "sshd_config")
  Fs.writeFileSync(config, [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${hostKey}`,
    `AuthorizedKeysFile ${authorized}`,
    `PidFile ${Path.join(directory, "sshd.pid")}`,
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    "StrictModes no",
    "PermitRootLogin prohibit-password",
    "AcceptEnv GIT_PROTOCOL",
    "LogLevel ERROR"
  ].join("\n"))
  Fs.mkdirSync("/run/sshd", { recursive: true })
  const child = ChildProcess.spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  return {
    child,
    stderr: () => stderr,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  }
}

const runOn = async (
  kind: BenchDatabase.DatabaseKind,
  settings: BenchSettings,
  source: string,
  work: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void
): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  // The tests never need sshd, so the test setup does not install it: the comparison does.
  if (!Fs.existsSync(SSHD)) throw new Error(`the ssh scenario compares with OpenSSH's ${SSHD}: install it (apt-get install -y openssh-server)`)
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const sshPort = await freePort()
  const sshdPort = await freePort()
  const keyDir = Fs.mkdtempSync(Path.join(work, "keys-"))
  const key = Path.join(keyDir, "id_ed25519")
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key], env)
  const publicKey = Fs.readFileSync(`${key}.pub`, "utf8").trim()
  const sshd = await startSshd(keyDir, sshdPort, publicKey)
  let server: ChildServer | undefined
  try {
    server = await startKiln({
      database,
      admin,
      logFile: Path.join(database.dataDir, "kiln.log"),
      env: { KILN_SSH_PORT: String(sshPort), KILN_SSH_HOST: "127.0.0.1", KILN_ACCESS_LOG: "false" }
    })
    const token = await createToken(server.url, admin, "ssh-bench")
    const api = async (method: string, path: string, json: unknown) => {
      const response = await fetch(`${server?.url}/api/v1${path}`, {
        method,
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify(json)
      })
      if (response.status !== 201) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    }
    await api("POST", `/admin/users/${admin.username}/keys`, { title: "bench", key: publicKey })
    const ssh = ["ssh", "-i", key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
    const sshEnv = { ...env, GIT_SSH_COMMAND: ssh.join(" ") }
    const user = Os.userInfo().username
    const kilnUrl = (name: string) => `ssh://git@127.0.0.1:${sshPort}/${admin.username}/${name}.git`
    const sshdUrl = (path: string) => `ssh://${user}@127.0.0.1:${sshdPort}${path}`
    const scratch = (label: string) => Fs.mkdtempSync(Path.join(work, `${kind}-${label}-`))

    // The served repository, pushed through Kiln's SSH (which also warms both servers up).
    await api("POST", "/user/repos", { name: "served" })
    await run("git", ["push", "-q", kilnUrl("served"), "refs/heads/*:refs/heads/*"], sshEnv, source)
    const served = Path.join(database.dataDir, "repositories", admin.username, "served.git")
    await run("git", ["ls-remote", sshdUrl(served)], sshEnv)

    // One SSH round trip: key exchange, sign-in and one exec (Kiln refuses it, sshd runs `true`).
    const kilnTrips: Array<number> = []
    const sshdTrips: Array<number> = []
    for (let trip = 0; trip < ROUND_TRIPS; trip++) {
      kilnTrips.push(await timed(() => runAnyway(ssh[0] ?? "ssh", [...ssh.slice(1), "-p", String(sshPort), "git@127.0.0.1", "true"], env)))
      sshdTrips.push(await timed(() => run(ssh[0] ?? "ssh", [...ssh.slice(1), "-p", String(sshdPort), `${user}@127.0.0.1`, "true"], env)))
    }
    log(`[${kind}] SSH round trip: Kiln ${median(kilnTrips).toFixed(1)} ms, sshd ${median(sshdTrips).toFixed(1)} ms`)

    // Clones of the same bare repository through each server, with Kiln's CPU and memory meanwhile.
    const kilnClones: Array<number> = []
    const sshdClones: Array<number> = []
    const pid = server.pid
    const cpuBefore = sampleProcess(pid)
    const rssBefore = rssMb(pid)
    let rssPeak = rssBefore
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(pid))
    }, 50)
    for (let clone = 0; clone < RUNS; clone++) {
      kilnClones.push(await timed(() => run("git", ["clone", "-q", "--bare", kilnUrl("served"), Path.join(scratch("clone"), "c.git")], sshEnv)))
    }
    clearInterval(sampler)
    const cpuAfter = sampleProcess(pid)
    for (let clone = 0; clone < RUNS; clone++) {
      sshdClones.push(await timed(() => run("git", ["clone", "-q", "--bare", sshdUrl(served), Path.join(scratch("clone"), "c.git")], sshEnv)))
    }
    const cloneRatio = median(kilnClones) / median(sshdClones)
    log(`[${kind}] clone: Kiln ${median(kilnClones).toFixed(0)} ms, sshd ${median(sshdClones).toFixed(0)} ms (×${cloneRatio.toFixed(2)})`)
    const cpu = cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : totalSeconds(processDelta(cpuBefore, cpuAfter))

    // Pushes of the whole history into fresh repositories through each server.
    const kilnPushes: Array<number> = []
    const sshdPushes: Array<number> = []
    for (let push = 0; push < 3; push++) {
      await api("POST", "/user/repos", { name: `pushed-${push}` })
      kilnPushes.push(await timed(() => run("git", ["push", "-q", kilnUrl(`pushed-${push}`), "refs/heads/*:refs/heads/*"], sshEnv, source)))
      const target = Path.join(scratch("push"), "target.git")
      await run("git", ["init", "-q", "--bare", target], env)
      sshdPushes.push(await timed(() => run("git", ["push", "-q", sshdUrl(target), "refs/heads/*:refs/heads/*"], sshEnv, source)))
    }
    const pushRatio = median(kilnPushes) / median(sshdPushes)
    log(`[${kind}] push: Kiln ${median(kilnPushes).toFixed(0)} ms, sshd ${median(sshdPushes).toFixed(0)} ms (×${pushRatio.toFixed(2)})`)

    // CPU per small operation over SSH, as the git scenario measures it over HTTP: every operation is a
    // connection of its own (key exchange, sign-in, one exec), as git makes it.
    const small = await smallOperations(sshEnv, source, scratch("small"), { push: kilnUrl("served"), fetch: kilnUrl("served") }, server.pid, settings.gitRounds, {
      rounds: settings.gitWarmUpRounds
    })
    const report = reportSmallOperations(small, settings.gitRounds)
    for (const line of report.lines) log(`[${kind}] over SSH: ${line}`)

    notes.push(
      "repository: the git scenario's (2,000 files, 300 commits, one pack), cloned with --bare",
      `SSH round trip (median of ${ROUND_TRIPS}): Kiln ${median(kilnTrips).toFixed(1)} ms ${list(kilnTrips)}, sshd ${median(sshdTrips).toFixed(1)} ms ${list(sshdTrips)}`,
      `clone (median of ${RUNS}): Kiln ${median(kilnClones).toFixed(0)} ms ${list(kilnClones)}, sshd ${median(sshdClones).toFixed(0)} ms ${list(sshdClones)}, ×${cloneRatio.toFixed(2)}`,
      `push (median of 3): Kiln ${median(kilnPushes).toFixed(0)} ms ${list(kilnPushes)}, sshd ${median(sshdPushes).toFixed(0)} ms ${list(sshdPushes)}, ×${pushRatio.toFixed(2)}`,
      `Kiln's process during its ${RUNS} clones: ${cpu === undefined ? "CPU not measured" : `${(cpu * 1000 / RUNS).toFixed(0)} ms CPU per clone`}, ` +
        `resident ${rssBefore.toFixed(0)} MB before, peak ${rssPeak.toFixed(0)} MB (git itself runs in child processes)`,
      ...report.lines.map((line) => `over SSH: ${line}`)
    )
    const targets: Array<TargetCheck> = [
      below("clone over Kiln's SSH ÷ clone over sshd (median)", cloneRatio, 1.3, true),
      below("push over Kiln's SSH ÷ push over sshd (median)", pushRatio, 1.5, true),
      below("Kiln CPU ÷ git CPU per push of 3 commits over SSH", report.pushRatio, 0.5, false),
      below("Kiln CPU ÷ git CPU per fetch of 3 commits over SSH", report.fetchRatio, 0.5, false)
    ]
    return { database: kind, loads: [], comparisons: [], targets, notes }
  } catch (error) {
    const detail = sshd.stderr().trim()
    throw detail === "" ? error : new Error(`${error instanceof Error ? error.message : String(error)}\nsshd: ${detail.slice(-1_000)}`)
  } finally {
    await server?.stop()
    await sshd.stop()
    await database.dispose()
  }
}

export const scenario: Scenario = {
  name: "ssh",
  description: "clone and push of the git scenario's repository over Kiln's SSH server vs OpenSSH's sshd; SSH round trip; Kiln's CPU",
  run: async (settings: BenchSettings, log) => {
    const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-bench-ssh-"))
    const databases: Array<DatabaseReport> = []
    try {
      const home = Path.join(work, "home")
      Fs.mkdirSync(home)
      const env = gitEnv(home)
      const source = await generate(work, env)
      // The transport is what differs; the database does not take part in a clone or push's transfer.
      for (const kind of settings.databases.slice(0, 1)) {
        try {
          databases.push(await runOn(kind, settings, source, work, env, log))
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error)
          log(`[${kind}] failed: ${message}`)
          databases.push({ database: kind, loads: [], comparisons: [], targets: [], notes: [], error: message })
        }
      }
    } finally {
      Fs.rmSync(work, { recursive: true, force: true })
    }
    return { scenario: "ssh", databases }
  }
}
