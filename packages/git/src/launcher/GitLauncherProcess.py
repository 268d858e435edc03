# The git launcher (GitLauncher.ts starts it) in Python: the same program as GitLauncherProcess.pl,
# speaking the same protocol (LauncherProtocol.ts), but starting git with posix_spawn. glibc's
# posix_spawn shares this process's memory with the child until it execs (CLONE_VM | CLONE_VFORK),
# where a fork copies the page tables and then pays a copy-on-write fault for every page either side
# writes. Measured on this project's 2-core virtual machine, per start of /bin/true: fork from Perl
# 1.3 ms of the launcher's CPU and 7.3 ms of the child's; posix_spawn here 0.5 ms and 2.8-3.4 ms.
#
# For each start it connects to the server's socket, names the start, and gives that connection to
# git as its stdin and stdout; git's stderr is kept (bounded) and reported with its exit.
# Only the standard library is used; run with -I -S (no environment, no site packages).
import errno
import os
import select
import signal
import socket
import sys

try:
    # Python 3.9 and Linux 5.3 or later: a child's exit is waited for on its pidfd.
    os.close(os.pidfd_open(os.getpid()))
    os.posix_spawn
except (AttributeError, OSError):
    # The server goes on to the next launcher.
    sys.exit(2)

DIRECTORY = sys.argv[1]
SOCKET_PATH = os.path.join(DIRECTORY, "git.sock")
STDERR_LIMIT = 64 * 1024
# Reset in git: here they are handled (to be ignored), and Python ignores SIGPIPE.
DEFAULT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)

# The server's shutdown (a signal to the whole group included) is the server's to run: this process
# ends when the server is gone.
signal.signal(signal.SIGINT, lambda *_: None)
signal.signal(signal.SIGTERM, lambda *_: None)


class Child:
    __slots__ = ("id", "pid", "pidfd", "stderr", "kept", "status")

    def __init__(self, id, pid, pidfd, stderr):
        self.id = id
        self.pid = pid
        self.pidfd = pidfd
        self.stderr = stderr
        self.kept = bytearray()
        self.status = None


children = {}  # id -> Child


def reply(message):
    view = memoryview(message)
    while view:
        try:
            written = os.write(1, view)
        except InterruptedError:
            continue
        except OSError:
            # A server that went away cannot be told anything: its closed input ends this process.
            return
        view = view[written:]


def failed(id, message):
    reply(("F %s %s\n" % (id, message.replace("\n", " "))).encode("utf-8", "replace"))


def start(id, key, command, args, env):
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(SOCKET_PATH)
        # The start's name first, written before git can write anything to the same connection.
        connection.sendall(key)
    except OSError as error:
        return failed(id, "connect %s: %s" % (SOCKET_PATH, error.strerror or error))
    # Python opens every descriptor close-on-exec: git gets only the three it is given.
    stderr_read, stderr_write = os.pipe()
    try:
        pid = os.posix_spawn(
            program_path(command, env),
            [command] + args,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, connection.fileno(), 0),
                (os.POSIX_SPAWN_DUP2, connection.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, stderr_write, 2),
            ],
            setsigdef=DEFAULT_SIGNALS,
        )
    except OSError as error:
        os.close(stderr_read)
        os.close(stderr_write)
        connection.close()
        return failed(id, "spawn %s %s" % (command, errno.errorcode.get(error.errno, "EIO")))
    os.close(stderr_write)
    connection.close()
    children[id] = Child(id, pid, os.pidfd_open(pid), stderr_read)
    reply(("S %s %d\n" % (id, pid)).encode())


def program_path(command, env):
    """`command` looked up on the PATH of git's environment, as execvp does (and Perl's exec)."""
    if "/" in command:
        return command
    # Without a PATH, execvp's default.
    for directory in env.get("PATH", os.defpath).split(":"):
        candidate = os.path.join(directory or ".", command)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(errno.ENOENT, "not found", command)


def kill_child(id, name):
    child = children.get(id)
    # Once reaped, its pid may be another process's.
    if child is None or child.status is not None:
        return
    try:
        os.kill(child.pid, signal.Signals[name if name.startswith("SIG") else "SIG" + name])
    except (KeyError, OSError):
        pass


def disconnected():
    # The socket's directory goes with the server, however the server ended. It holds the socket alone.
    if os.path.basename(os.path.normpath(DIRECTORY)).startswith("kiln-git-"):
        try:
            os.unlink(SOCKET_PATH)
            os.rmdir(DIRECTORY)
        except OSError:
            pass
    os._exit(0)


fields = []
pending = b""


def read_requests():
    global pending
    try:
        chunk = os.read(0, 65536)
    except InterruptedError:
        return
    except OSError:
        disconnected()
    if not chunk:
        disconnected()
    whole = (pending + chunk).split(b"\0")
    pending = whole.pop()
    fields.extend(whole)
    while fields:
        tag = fields[0]
        if tag == b"K":
            if len(fields) < 3:
                return
            _, id, name = fields[:3]
            del fields[:3]
            kill_child(id.decode(), name.decode())
        elif tag == b"S":
            if len(fields) < 5:
                return
            argc = int(fields[4])
            if len(fields) < 6 + argc:
                return
            envc = int(fields[5 + argc])
            if len(fields) < 6 + argc + envc:
                return
            id = fields[1].decode()
            key = fields[2]
            command = os.fsdecode(fields[3])
            args = [os.fsdecode(arg) for arg in fields[5:5 + argc]]
            env = {}
            for entry in fields[6 + argc:6 + argc + envc]:
                name, _, value = entry.partition(b"=")
                env[os.fsdecode(name)] = os.fsdecode(value)
            del fields[:6 + argc + envc]
            start(id, key, command, args, env)
        else:
            sys.stderr.write("git launcher: a request it does not know: '%s'\n" % tag.decode("utf-8", "replace"))
            sys.exit(1)


def read_stderr(child):
    try:
        chunk = os.read(child.stderr, 65536)
    except InterruptedError:
        return
    except OSError:
        chunk = b""
    if not chunk:
        os.close(child.stderr)
        child.stderr = None
        return
    room = STDERR_LIMIT - len(child.kept)
    if room > 0:
        child.kept += chunk[:room]


def reap(child):
    try:
        pid, status = os.waitpid(child.pid, os.WNOHANG)
    except ChildProcessError:
        return
    if pid == child.pid:
        child.status = status
        os.close(child.pidfd)
        child.pidfd = None


def report_finished():
    # Reported once it exited and its stderr ended, as Node's `close` of a child process.
    for id in [id for id, child in children.items() if child.stderr is None and child.status is not None]:
        child = children.pop(id)
        status = child.status
        code = str(os.WEXITSTATUS(status)) if os.WIFEXITED(status) else "-"
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = "SIGKILL"
        else:
            name = "-"
        reply(("E %s %s %s %d\n" % (id, code, name, len(child.kept))).encode() + bytes(child.kept))


reply(b"R\n")
while True:
    poller = select.poll()
    poller.register(0, select.POLLIN)
    by_fd = {}
    for child in children.values():
        for fd in (child.stderr, child.pidfd):
            if fd is not None:
                poller.register(fd, select.POLLIN)
                by_fd[fd] = child
    try:
        events = poller.poll()
    except InterruptedError:
        continue
    for fd, _ in events:
        if fd == 0:
            read_requests()
            continue
        child = by_fd.get(fd)
        if child is None:
            continue
        if fd == child.stderr:
            read_stderr(child)
        elif fd == child.pidfd:
            reap(child)
    report_finished()
