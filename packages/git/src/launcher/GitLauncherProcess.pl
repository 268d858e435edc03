#!/usr/bin/perl
# The git launcher (GitLauncher.ts starts it) in Perl: the same program as GitLauncherProcess.ts,
# speaking the same protocol (LauncherProtocol.ts). Forking this 5 MB process costs the kernel a
# fraction of forking even the smallest Node process (measured: 0.3 ms of CPU per start, against
# 2.3-2.7 ms from Node), and git's Debian package depends on perl, so it is there where git is.
# Where perl is not, GitLauncher.ts runs the Node program.
#
# For each start it connects to the server's socket, names the start, and gives that connection to
# git as its stdin and stdout; git's stderr is kept (bounded) and reported with its exit.
# Only the modules of Debian's perl-base are used.
use strict;
use warnings;
use Config;
use Errno qw(EAGAIN EINTR);
use POSIX qw(WNOHANG WIFEXITED WEXITSTATUS WIFSIGNALED WTERMSIG);
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);

my $directory = $ARGV[0] // die "usage: GitLauncherProcess.pl <socket directory>\n";
my $socket_path = "$directory/git.sock";
my $STDERR_LIMIT = 64 * 1024;
my @signal_names = split ' ', $Config{sig_name};

# The server's shutdown (a signal to the whole group included) is the server's to run: this process
# ends when the server is gone. Handlers rather than 'IGNORE', which git would inherit through exec.
$SIG{INT} = $SIG{TERM} = sub { };
# A server that went away cannot be told anything: its closed input ends this process.
$SIG{PIPE} = 'IGNORE';

# id => { pid, stderr (a handle, until its end), kept (git's stderr, bounded), status (once reaped) }
my %children;
my %ids_by_pid;
# Whole request fields not yet making a whole request, and the bytes after the last whole field.
my @fields;
my $input = '';

sub reply {
  my ($message) = @_;
  while (length $message) {
    my $written = syswrite(STDOUT, $message);
    if (!defined $written) {
      next if $! == EINTR;
      return;
    }
    substr($message, 0, $written) = '';
  }
}

sub failed {
  my ($id, $message) = @_;
  $message =~ tr/\n/ /;
  reply("F $id $message\n");
}

sub errno_name {
  my ($name) = grep { $!{$_} } keys %!;
  return $name // 'EIO';
}

sub start {
  my ($id, $key, $command, $args, $env) = @_;
  my $connection;
  socket($connection, AF_UNIX, SOCK_STREAM, 0) or return failed($id, "socket: $!");
  connect($connection, pack_sockaddr_un($socket_path)) or return failed($id, "connect $socket_path: $!");
  # The start's name first, written before git can write anything to the same connection.
  defined syswrite($connection, $key) or return failed($id, "write: $!");
  # Perl opens every handle above stderr close-on-exec: git gets only its three.
  pipe(my $stderr_read, my $stderr_write) or return failed($id, "pipe: $!");
  # Written by the child only when exec fails; its end at exec is the start's success.
  pipe(my $exec_read, my $exec_write) or return failed($id, "pipe: $!");
  my $pid = fork;
  return failed($id, "fork: $!") unless defined $pid;
  if ($pid == 0) {
    POSIX::dup2(fileno $connection, 0);
    POSIX::dup2(fileno $connection, 1);
    POSIX::dup2(fileno $stderr_write, 2);
    $SIG{$_} = 'DEFAULT' for qw(INT TERM PIPE);
    %ENV = map { split /=/, $_, 2 } @$env;
    { no warnings 'exec'; exec { $command } $command, @$args; }
    syswrite($exec_write, errno_name());
    POSIX::_exit(127);
  }
  close $exec_write;
  close $stderr_write;
  close $connection;
  my $report = '';
  while (1) {
    my $read = sysread($exec_read, $report, 256, length $report);
    last if defined $read && $read == 0;
    next if !defined $read && $! == EINTR;
    last unless defined $read;
  }
  close $exec_read;
  if (length $report) {
    waitpid($pid, 0);
    close $stderr_read;
    return failed($id, "spawn $command $report");
  }
  $children{$id} = { pid => $pid, stderr => $stderr_read, kept => '' };
  $ids_by_pid{$pid} = $id;
  reply("S $id $pid\n");
}

sub kill_child {
  my ($id, $signal) = @_;
  my $child = $children{$id};
  # Once reaped, its pid may be another process's.
  return if !defined $child || defined $child->{status};
  $signal =~ s/^SIG//;
  eval { kill $signal, $child->{pid} };
}

# The socket's directory goes with the server, however the server ended. It holds the socket alone.
sub disconnected {
  if ($directory =~ m{(?:^|/)kiln-git-[^/]*/?$}) {
    unlink $socket_path;
    rmdir $directory;
  }
  exit 0;
}

sub read_requests {
  my $read = sysread(STDIN, $input, 65536, length $input);
  if (!defined $read) {
    return if $! == EINTR || $! == EAGAIN;
    disconnected();
  }
  disconnected() if $read == 0;
  my @whole = split /\0/, $input, -1;
  $input = pop @whole;
  push @fields, @whole;
  while (@fields) {
    my $tag = $fields[0];
    if ($tag eq 'K') {
      last if @fields < 3;
      my (undef, $id, $signal) = splice @fields, 0, 3;
      kill_child($id, $signal);
    } elsif ($tag eq 'S') {
      last if @fields < 5;
      my $argc = $fields[4];
      last if @fields < 6 + $argc;
      my $envc = $fields[5 + $argc];
      last if @fields < 6 + $argc + $envc;
      my (undef, $id, $key, $command) = splice @fields, 0, 5;
      my @args = splice @fields, 0, $argc;
      shift @fields;
      my @env = splice @fields, 0, $envc;
      start($id, $key, $command, \@args, \@env);
    } else {
      die "git launcher: a request it does not know: '$tag'\n";
    }
  }
}

sub read_stderr {
  my ($child) = @_;
  my $read = sysread($child->{stderr}, my $chunk, 65536);
  if (!defined $read) {
    return if $! == EINTR || $! == EAGAIN;
    $read = 0;
  }
  if ($read == 0) {
    close $child->{stderr};
    $child->{stderr} = undef;
    return;
  }
  my $room = $STDERR_LIMIT - length $child->{kept};
  $child->{kept} .= substr($chunk, 0, $room) if $room > 0;
}

sub reap {
  while ((my $pid = waitpid(-1, WNOHANG)) > 0) {
    my $id = delete $ids_by_pid{$pid};
    $children{$id}{status} = $? if defined $id;
  }
  # Reported once it exited and its stderr ended, as Node's `close` of a child process.
  for my $id (keys %children) {
    my $child = $children{$id};
    next if defined $child->{stderr} || !defined $child->{status};
    my $status = $child->{status};
    my $code = WIFEXITED($status) ? WEXITSTATUS($status) : '-';
    my $signal = WIFSIGNALED($status) ? 'SIG' . ($signal_names[WTERMSIG($status)] // 'KILL') : '-';
    reply("E $id $code $signal " . length($child->{kept}) . "\n" . $child->{kept});
    delete $children{$id};
  }
}

reply("R\n");
while (1) {
  my $watched = '';
  vec($watched, fileno(STDIN), 1) = 1;
  my $awaiting_exit = 0;
  for my $child (values %children) {
    if (defined $child->{stderr}) {
      vec($watched, fileno($child->{stderr}), 1) = 1;
    } elsif (!defined $child->{status}) {
      $awaiting_exit = 1;
    }
  }
  # A git whose stderr ended exits right after: until then it is looked for every few milliseconds.
  my $ready = select(my $readable = $watched, undef, undef, $awaiting_exit ? 0.002 : undef);
  if ($ready < 0) {
    next if $! == EINTR;
    die "git launcher: select: $!\n";
  }
  if ($ready > 0) {
    read_requests() if vec($readable, fileno(STDIN), 1);
    for my $child (values %children) {
      read_stderr($child) if defined $child->{stderr} && vec($readable, fileno($child->{stderr}), 1);
    }
  }
  reap();
}
