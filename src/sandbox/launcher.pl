# The first process inside ralph's sandbox: it gives the sandbox, which has no network of its
# own, ralph's egress proxy on its loopback, and starts the agent (or gate) as its child.
#
#   perl launcher.pl [--socket <proxy socket> --port <proxy port> [--forward <host:port>]...] -- <argv>
#
# The proxy listens on a unix socket bound into the sandbox: each connection to
# 127.0.0.1:<port> is carried there as it is (an HTTP proxy's client speaks to it); each to a
# forwarded loopback endpoint (a CLI's API on 127.0.0.1 outside) is carried there as a CONNECT
# to that endpoint, which the proxy lets through or refuses like any other.
#
# ralph starts the sandbox with SIGINT and SIGTERM ignored, so that its stop ladder, sent to the
# whole process group, reaches the agent without killing bubblewrap (which would take the agent
# down with it at once); the agent gets the default handling back here.
#
# Perl, not node: the system's perl (Debian's perl-base, always installed) starts in a few
# milliseconds, node in a hundred, and this runs once a session and once for its gates. Only
# Socket is loaded (POSIX alone would cost more than the rest).
use strict;
use warnings;
use Socket qw(AF_INET AF_UNIX SOCK_STREAM SOL_SOCKET SO_REUSEADDR SHUT_WR
  inet_aton pack_sockaddr_in pack_sockaddr_un);

# <sys/wait.h>'s WNOHANG on Linux, the only system bubblewrap runs on.
use constant WNOHANG => 1;
# The most a proxy's answer to a CONNECT may hold before its blank line.
use constant MAX_HEAD_BYTES => 65536;

sub fail {
  my ($code, $message) = @_;
  print STDERR "ralph sandbox: $message\n";
  exit $code;
}

my ($proxy_socket, $proxy_port, @forwards);
while (1) {
  my $arg = shift @ARGV;
  fail(125, 'no command after --') unless defined $arg;
  last if $arg eq '--';
  my $value = shift @ARGV;
  fail(125, "$arg needs a value") unless defined $value;
  if ($arg eq '--socket') { $proxy_socket = $value }
  elsif ($arg eq '--port') { $proxy_port = $value }
  elsif ($arg eq '--forward') {
    fail(125, "bad --forward $value") unless $value =~ /^(.+):(\d+)$/;
    push @forwards, [$1, $2];
  }
  else { fail(125, "unknown argument $arg") }
}
fail(125, 'no command after --') unless @ARGV;

sub listener {
  my ($port) = @_;
  socket(my $server, AF_INET, SOCK_STREAM, 0) or fail(125, "socket: $!");
  setsockopt($server, SOL_SOCKET, SO_REUSEADDR, 1);
  bind($server, pack_sockaddr_in($port, inet_aton('127.0.0.1')))
    or fail(125, "cannot listen on 127.0.0.1:$port: $!");
  listen($server, 128) or fail(125, "cannot listen on 127.0.0.1:$port: $!");
  return $server;
}

# Each listener, with the endpoint its connections are carried to by a CONNECT (none: as they are).
my @servers;
if (defined $proxy_socket && defined $proxy_port) {
  push @servers, [listener($proxy_port), undef];
  push @servers, [listener($_->[1]), "$_->[0]:$_->[1]"] for @forwards;
}

sub write_all {
  my ($to, $data) = @_;
  while (length $data) {
    my $written = syswrite($to, $data);
    return 0 unless $written;
    substr($data, 0, $written) = '';
  }
  return 1;
}

# Copies both ways until both sides have ended, passing each end on as a half close.
sub relay {
  my ($client, $upstream) = @_;
  my @ways = ([$client, $upstream], [$upstream, $client]);
  my %ended;
  while (keys %ended < 2) {
    my $readable = '';
    vec($readable, fileno $_->[0], 1) = 1 for grep { !$ended{fileno $_->[0]} } @ways;
    next unless select($readable, undef, undef, undef) > 0;
    for my $way (@ways) {
      my ($from, $to) = @$way;
      next if $ended{fileno $from} || !vec($readable, fileno $from, 1);
      if (sysread($from, my $chunk, 65536)) {
        return unless write_all($to, $chunk);
      } else {
        $ended{fileno $from} = 1;
        shutdown($to, SHUT_WR);
      }
    }
  }
}

# One connection, in a process of its own: carried to the proxy, through a CONNECT if forwarded.
sub carry {
  my ($client, $target) = @_;
  $SIG{CHLD} = 'DEFAULT';
  $SIG{PIPE} = 'IGNORE';
  close $_->[0] for @servers;
  socket(my $upstream, AF_UNIX, SOCK_STREAM, 0) or return;
  connect($upstream, pack_sockaddr_un($proxy_socket)) or return;
  if (defined $target) {
    write_all($upstream, "CONNECT $target HTTP/1.1\r\nHost: $target\r\n\r\n") or return;
    my $head = '';
    while (index($head, "\r\n\r\n") < 0) {
      return if length $head > MAX_HEAD_BYTES;
      sysread($upstream, $head, 4096, length $head) or return;
    }
    my $end = index($head, "\r\n\r\n");
    return unless substr($head, 0, $end) =~ m{^HTTP/1\.[01] 200};
    write_all($client, substr($head, $end + 4)) or return;
  }
  relay($client, $upstream);
}

# A child's end wakes the loop below through this pipe, whenever it comes.
pipe(my $wake, my $waker) or fail(125, "pipe: $!");
$SIG{CHLD} = sub { syswrite($waker, 'x') };
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP);

my $agent = fork;
fail(125, "fork: $!") unless defined $agent;
if ($agent == 0) {
  $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP CHLD);
  # The list form with a block never goes through a shell, even for one word.
  {
    no warnings 'exec';
    exec { $ARGV[0] } @ARGV;
  }
  my $missing = $!{ENOENT};
  print STDERR "ralph sandbox: cannot start $ARGV[0]: $!\n";
  exit($missing ? 127 : 126);
}

my $status;
while (!defined $status) {
  while ((my $pid = waitpid(-1, WNOHANG)) > 0) { $status = $? if $pid == $agent }
  last if defined $status;
  my $readable = '';
  vec($readable, fileno $wake, 1) = 1;
  vec($readable, fileno $_->[0], 1) = 1 for @servers;
  next unless select($readable, undef, undef, undef) > 0;
  sysread($wake, my $drained, 4096) if vec($readable, fileno $wake, 1);
  for my $server (@servers) {
    next unless vec($readable, fileno $server->[0], 1);
    accept(my $client, $server->[0]) or next;
    my $pid = fork;
    if (defined $pid && $pid == 0) {
      carry($client, $server->[1]);
      exit 0;
    }
    close $client;
  }
}
exit($status & 127 ? 128 + ($status & 127) : $status >> 8);
