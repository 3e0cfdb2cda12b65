# shellcheck shell=sh
# What every session script shares (core/vm-job-shell.ts; issue 11), included after lib/stop.sh, whose checks
# (cr_own_dir, cr_claim, cr_is_tag, the stop by tag) it builds on. A session lives in
# `~/.catalyst-sessions/<id>/` (root and session dir 0700, owned, not symlinks); its processes carry the session id
# as their run tag (cr_tag), so the stop by tag and the process scans find them.
# Its functions set variables for the including script (cr_a, cr_s, …), and read ones it set.
# shellcheck disable=SC2154,SC2034

# The session's id, from the first line of stdin (never an argument: `ps` shows argv to every user).
cr_read_tag() {
  cr_tag=
  IFS= read -r cr_tag
  cr_is_tag "$cr_tag"
}
# Where sessions live, into cr_root.
cr_session_root() {
  cr_root=${HOME:-/nonexistent}/.catalyst-sessions
}
# cr_run: the session dir, when it and its root are real directories of ours.
cr_session_dir() {
  cr_session_root
  cr_own_dir "$cr_root" || return 1
  cr_run=$cr_root/$cr_tag
  cr_own_dir "$cr_run"
}
# The age of file $1 in seconds (against cr_now) into cr_a; 0 when it is missing.
cr_age() {
  cr_m=$(stat -c %Y "$1" 2>/dev/null) || {
    cr_a=0
    return
  }
  cr_a=$((cr_now - cr_m))
}
# Kills the attacher A that holds the lock, and its children (`holder`: A's pid, its follower, its children's pids).
# Called in the session dir.
cr_displace() {
  read -r cr_hp _ cr_hc <holder 2>/dev/null || return 0
  # Only the A that holds this very lock (its fd 9): never a process that took over a pid of an A long gone. `-ef`
  # is not POSIX, but dash's and bash's test both have it.
  # shellcheck disable=SC3013
  [ "/proc/$cr_hp/fd/9" -ef lock ] || return 0
  for cr_p in $cr_hc; do
    cr_pp=
    read -r _ _ _ cr_pp _ <"/proc/$cr_p/stat" 2>/dev/null
    [ "$cr_pp" = "$cr_hp" ] && kill -KILL "$cr_p" 2>/dev/null
  done
  kill -KILL "$cr_hp" 2>/dev/null
}
# Whether the A that holds the lock was opened for follower $1 (`-`: none), the one now attaching: that follower
# knows its own attachment's channel is gone (issue 39: a connection that died without sshd noticing), so the new
# attach takes its place at once rather than waiting for its heartbeat to go stale. Only the A that holds this very
# lock counts (as in cr_displace): a `holder` left by an A long gone names no holder.
cr_held_by() {
  [ "$1" != - ] || return 1
  read -r cr_hp cr_hf _ <holder 2>/dev/null || return 1
  # shellcheck disable=SC3013
  [ "$cr_hf" = "$1" ] && [ "/proc/$cr_hp/fd/9" -ef lock ]
}
# S itself, not a process that took over its pid (a VM that rebooted): S and its forks carry `cr_tag=<id>` in their
# environment (the start script sets it there), nothing else does. $1: the file holding S's pid.
cr_sup_alive() {
  cr_sp=$(cr_pid_in "$1")
  [ -n "$cr_sp" ] && grep -qszxF "cr_tag=$cr_tag" "/proc/$cr_sp/environ"
}
# S is gone without a status (SIGKILLed: an OOM kill, a reboot, logind's KillUserProcesses): what is left of the job
# and of S's forks is stopped, and the status S never wrote is written here, with the reason claimed first (a cancel
# sent meanwhile) or `vanished`. Called in the session dir.
cr_vanish() {
  cr_claim vanished
  cr_stop "" ""
  # /proc/<pid>/environ paths: no spaces to split wrongly.
  # shellcheck disable=SC2013
  for cr_f in $(grep -laszxF "cr_tag=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    cr_p=${cr_f#/proc/}
    cr_p=${cr_p%/environ}
    [ "$cr_p" = "$$" ] || kill -KILL "$cr_p" 2>/dev/null
  done
  cr_reason=$(cat reason 2>/dev/null)
  [ -e status ] || { printf 'code=137 reason=%s\n' "${cr_reason:-vanished}" >status.tmp && mv status.tmp status; }
}
# Whether the disk that holds $1 is full (no 1K block available).
cr_full() {
  cr_k=$(df -Pk -- "$1" 2>/dev/null | {
    read -r _
    read -r _ _ _ cr_v _
    printf '%s' "$cr_v"
  })
  [ "$cr_k" = 0 ]
}
