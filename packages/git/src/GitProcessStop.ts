/**
 * Stopping a git whose client went away or stalled, for every transport.
 *
 * A `receive-pack` is given the end of its input, as Forgejo does, not a signal: killed, it leaves
 * the objects it was receiving (its quarantine, `objects/tmp_objdir-incoming-*`) in the repository
 * for good, and a repository's size counts them; at the end of its input it says `early EOF`,
 * removes them and exits. Its output is read and dropped meanwhile, so that a full pipe cannot hold
 * it, and it is killed if it has not exited STOP_GRACE_MILLIS later. Any other git is killed: it
 * writes nothing into the repository.
 */
import type { GitProcess } from "./launcher/GitLauncher.ts"

/** How long a stopped receive-pack has to remove what it received once its input ended. */
const STOP_GRACE_MILLIS = 10_000

const stopped = new WeakSet<GitProcess>()

/** Stops `child`, a git running `service`; stopping it again does nothing. */
export const stopGit = (child: GitProcess, service: string, signal: NodeJS.Signals = "SIGTERM"): void => {
  if (stopped.has(child)) return
  stopped.add(child)
  if (service !== "git-receive-pack") return child.kill(signal)
  child.stdin.destroy()
  child.stdout.unpipe()
  child.stdout.resume()
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MILLIS)
  child.once("close", () => clearTimeout(timer))
}
