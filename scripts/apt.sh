#!/usr/bin/env bash
# Debian's package manager, waited for when another program holds it (a new machine's own
# updates at boot): scripts/apt.sh install [OPTION…] PACKAGE… updates the lists and installs
# them (apt-get install -y and the options given).
#
# apt 2.6 waits for dpkg's frontend lock when asked (DPkg::Lock::Timeout) but fails at once on
# the lists' lock (`apt-get update`) and the downloads' lock. So every lock apt takes is
# looked at first, every POLL seconds, until none is held or RELICVIEW_APT_WAIT seconds
# (default 900) have passed, saying which program holds it; apt-get then waits on dpkg's own
# lock for the time left, and a lock taken between the look and apt-get's start sends it back
# to waiting. Past the wait: exit 1, naming the program that still holds the lock.
set -euo pipefail

LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
POLL=${RELICVIEW_APT_POLL:-2}
limit=${RELICVIEW_APT_WAIT:-900}
start=$SECONDS

say() { echo "apt.sh: $*" >&2; }

# The holder of `lock` as "process PID (NAME)", from the kernel's table of POSIX locks (apt
# and dpkg take fcntl locks); empty when none holds it.
holder() {
  local lock=$1 inode pid
  [ -e "$lock" ] || return 0
  inode=$(stat -c %i "$lock")
  # /proc/locks: "1: POSIX  ADVISORY  WRITE 1234 fe:01:5678 0 EOF" (an OFD lock's pid is -1).
  pid=$(awk -v inode="$inode" '{ split($6, dev, ":"); if (dev[3] == inode) { print $5; exit } }' /proc/locks)
  [ -n "$pid" ] || return 0
  if [ "$pid" = -1 ]; then
    echo "an open file description (no process named)"
  else
    echo "process $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo 'ended'))"
  fi
}

# Wait until no lock apt takes is held, or fail past the limit naming the holder.
wait_for_locks() {
  local said_at=-1 lock who
  while :; do
    who=""
    for lock in "${LOCKS[@]}"; do
      who=$(holder "$lock")
      if [ -n "$who" ]; then break; fi
    done
    [ -n "$who" ] || return 0
    local waited=$((SECONDS - start))
    if [ "$waited" -ge "$limit" ]; then
      say "gave up after ${waited} s: $lock is still held by $who. Let it finish (a new machine's own updates can take a while), or stop it, then run this again."
      exit 1
    fi
    # (Said when the wait starts, then every 30 s.)
    if [ "$said_at" -lt 0 ] || [ $((waited - said_at)) -ge 30 ]; then
      say "waiting for $lock, held by $who (${waited} s of at most ${limit} s)"
      said_at=$waited
    fi
    sleep "$POLL"
  done
}

# apt-get with the time left as its own wait for dpkg's lock; run again after waiting when
# it failed on a lock taken since the look.
apt_get() {
  local out rc
  while :; do
    wait_for_locks
    local left=$((limit - (SECONDS - start)))
    set +e
    out=$(DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$((left > 0 ? left : 0))" "$@" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      return 0
    fi
    if grep -q "Could not get lock\|Unable to lock" <<<"$out" && [ $((SECONDS - start)) -lt "$limit" ]; then
      say "apt-get found a lock taken meanwhile; waiting again"
      continue
    fi
    echo "$out" >&2
    return "$rc"
  done
}

case "${1:-}" in
  install)
    shift
    apt_get update -qq
    apt_get install -y -qq "$@"
    ;;
  wait)
    wait_for_locks
    ;;
  *)
    echo "usage: scripts/apt.sh install PACKAGE… | wait" >&2
    exit 2
    ;;
esac
