#!/bin/sh
# castls-server.sh ARGS...: runs the castls under test ($CASTLS_BIN) for an
# editor client, appending its stderr to $CASTLS_STDERR and its exit status
# to $CASTLS_STDERR.exit, so the test driver can look for sanitizer reports
# and unclean exits after the client is gone.
#
# The server runs in its own session: Eglot kills the process group right
# after sending "exit", which would cut short the leak check (and this
# script's status line). Outside the group, the server reads "exit" (or
# EOF) and ends as it would in normal use.
echo start >>"$CASTLS_STDERR.runs"
exec setsid -w sh -c '"$CASTLS_BIN" "$@" 2>>"$CASTLS_STDERR"
	echo $? >>"$CASTLS_STDERR.exit"' castls-server "$@"
