#!/usr/bin/env bash
# The planner through a real SSH session on loopback: the test starts its own sshd (keys,
# config and pid file in TEST_TMP), drives a few keys inside tmux, and quits. A missing sshd is
# a failure, not a skip: .ci/run installs openssh-server.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
SSHD=/usr/sbin/sshd
if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
  fail "sshd/ssh/ssh-keygen not installed (apt-get install openssh-server openssh-client)"
  finish; exit 1
fi
DB="$TEST_TMP/runs.db"
SSHDIR="$TEST_TMP/ssh"
mkdir -p "$SSHDIR" /run/sshd
chmod 700 "$SSHDIR"
ssh-keygen -q -t ed25519 -N '' -f "$SSHDIR/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$SSHDIR/client_key"
cp "$SSHDIR/client_key.pub" "$SSHDIR/authorized_keys"
chmod 600 "$SSHDIR/authorized_keys"
USER_NAME=$(id -un)

# a free port near 22000 + $$ % 1000
PORT=$((22000 + $$ % 1000))
for _ in $(seq 1 50); do
  python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1', $PORT))" 2>/dev/null && break
  PORT=$((PORT + 1))
done
cat > "$SSHDIR/sshd_config" <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $SSHDIR/host_key
AuthorizedKeysFile $SSHDIR/authorized_keys
PidFile $SSHDIR/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
PubkeyAuthentication yes
AcceptEnv LANG LC_*
CFG
"$SSHD" -f "$SSHDIR/sshd_config" -D -e 2>"$TEST_TMP/sshd.log" &
SSHD_PID=$!
trap 'kill $SSHD_PID 2>/dev/null; cleanup_tmux; rm -rf "$TEST_TMP"' EXIT
# wait for the port
i=0; until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; do
  i=$((i+1)); [ $i -gt 100 ] && { fail "sshd did not start: $(cat "$TEST_TMP/sshd.log")"; finish; exit 1; }; sleep 0.05
done
pass

SSH="ssh -tt -i $SSHDIR/client_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p $PORT $USER_NAME@127.0.0.1"
start_session 120 40 "$SSH \"env HOME=$HOME XDG_DATA_HOME=$XDG_DATA_HOME TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB\""
wait_for 'max_bs' 20 || { cat "$TEST_TMP/sshd.log" >&2; finish; exit 1; }
t0=$(screen_total) && pass || fail "ssh: no single total line"
[ "$t0" = "$(expected_total k3-dp16)" ] && pass || fail "ssh: start total $t0"
tm send-keys -t t Right
t1=$(wait_total_change "$t0")
bs=$(screen_knob max_bs)
[ "$t1" != "$t0" ] && pass || fail "ssh: total did not change after Right"
[ "$t1" = "$(expected_total k3-dp16 max_bs="$bs")" ] && pass || fail "ssh: total $t1 at max_bs $bs"
tm send-keys -t t PgUp
t2=$(wait_total_change "$t1")
[ "$t2" = "$(expected_total k3-dp16 max_bs="$(screen_knob max_bs)")" ] && pass || fail "ssh: total $t2 after PgUp"
tm send-keys -t t q
st=$(wait_status 15)
[ "$st" = "EXIT=0" ] && pass || fail "ssh: q gives $st"
wait_for 'AFTER-TUI' || true
[ "$(tm display -p -t t '#{mouse_any_flag}')" = 0 ] && pass || fail "ssh: mouse mode left on"
kill "$SSHD_PID" 2>/dev/null; wait "$SSHD_PID" 2>/dev/null
finish
