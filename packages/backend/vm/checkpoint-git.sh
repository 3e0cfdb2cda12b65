# shellcheck shell=sh
# Catalyst's checkpoints (issue 13): `/bin/sh -c "<this>" catalyst-git <action> <args>`, run on the host in the idea's
# project/ through the run wrapper, with checkpointEnv's environment (checkpoints/core/checkpoint-git.ts). Commits are made with
# plumbing (write-tree, commit-tree, update-ref): no porcelain refresh, no hooks. Everything variable stays off the
# script: commits and numbers are positional arguments, and a commit message or a path, which can hold a person's
# words, comes on stdin as one line, `{"octal":"<byte> <byte> …"}`, since `ps` shows an argv to every user of the
# host (issue 25). What it prints for Catalyst are `@@` lines (checkpoints/core/checkpoint-git.ts reads them).
#
#   checkpoint <last checkpoint or ''> <1: commit even when nothing changed>   message on stdin
#   restore <commit> <last checkpoint or ''>                                    message on stdin
#   diff <from or '': the empty tree> <to> <most bytes>
#   file-at <commit> <most bytes>                                               path on stdin
set -u
command -v git >/dev/null 2>&1 || {
  echo '@@NOGIT'
  exit 0
}
G() {
  git -c core.hooksPath=/dev/null -c commit.gpgsign=false -c core.fsmonitor=false -c gc.auto=0 \
    -c maintenance.auto=false -c core.quotepath=false -c advice.detachedHead=false "$@"
}
fail() {
  printf '@@FAIL=%s\n' "$1"
  exit 3
}
# project/ replaced by a symlink (to ~, say) must not make Catalyst commit or restore elsewhere.
[ "$(pwd -P)" = "$(cd "$GIT_CEILING_DIRECTORIES" && pwd -P)/project" ] || fail 'project/ is not a folder of its own'
# Catalyst's git runs only while the idea has no run, whose processes are all stopped: an index.lock now was left by
# a git that was killed, and would block every checkpoint.
if [ -f .git/index.lock ]; then rm -f .git/index.lock && echo '@@STALELOCK'; fi

# The first line of stdin, `{"octal":"<byte> <byte> …"}`, made into a printf format of `\ooo` escapes (POSIX printf
# has them; no `%` can be in it): cr_msg.
read_message() {
  IFS= read -r cr_in || fail 'reading the commit message from stdin'
  cr_in=${cr_in#*:\"}
  cr_in=${cr_in%\"*}
  case $cr_in in '' | *[!0-7\ ]*) fail 'reading the commit message from stdin' ;; esac
  cr_msg=''
  for cr_o in $cr_in; do cr_msg="$cr_msg\\$cr_o"; done
}

# What changed from $1 (a commit, or empty: the empty tree) to $2: one pass, --raw then --numstat, -z.
stat_of() {
  cr_b=$1
  [ -n "$cr_b" ] || cr_b=$(G hash-object -t tree /dev/null) || fail 'git hash-object'
  printf '@@STAT\n'
  G diff-tree -r -z -M --raw --numstat --no-ext-diff --no-textconv "$cr_b" "$2" -- || fail 'git diff-tree'
}

# Commits the index on top of HEAD (none when unborn) with the message read_message read, without hooks or a
# porcelain's work: the commit is cr_c.
commit_index() {
  cr_t=$(G write-tree) || fail 'git write-tree'
  cr_h=$(G rev-parse -q --verify HEAD) || cr_h=''
  # The format is read_message's `\ooo` escapes, on purpose.
  # shellcheck disable=SC2059
  if [ -n "$cr_h" ]; then
    cr_c=$(printf "$cr_msg\n" | G commit-tree "$cr_t" -p "$cr_h") || fail 'git commit-tree'
  else
    cr_c=$(printf "$cr_msg\n" | G commit-tree "$cr_t") || fail 'git commit-tree'
  fi
  G update-ref -m 'catalyst: checkpoint' HEAD "$cr_c" "$cr_h" || fail 'git update-ref'
  # A ref of its own: Claude's own reset or amend can leave the branch elsewhere, and gc never prunes it then.
  G update-ref "refs/catalyst/$cr_c" "$cr_c" || fail 'git update-ref'
}

# Everything but installed dependencies and caches, even where the project's .gitignore does not leave them out:
# a restore should not bring them back (they are reinstalled) and their thousands of files would swamp a checkpoint
# (`npm install` without a .gitignore). Exclude pathspecs, so git does not even walk into them; .gitignore is
# respected.
add_all() {
  G add -A -- . ':(exclude,glob)**/node_modules/**' ':(exclude,glob)**/.venv/**' ':(exclude,glob)**/venv/**' \
    ':(exclude,glob)**/__pycache__/**' ':(exclude,glob)**/.pytest_cache/**' ':(exclude,glob)**/.mypy_cache/**' \
    ':(exclude,glob)**/.ruff_cache/**' ':(exclude,glob)**/.next/**' ':(exclude,glob)**/.nuxt/**' \
    ':(exclude,glob)**/.turbo/**' ':(exclude,glob)**/.parcel-cache/**' ':(exclude,glob)**/.cache/**' \
    ':(exclude,glob)**/.gradle/**' || fail 'git add'
}

cr_action=${1-}
[ $# -eq 0 ] || shift
case $cr_action in
  checkpoint)
    # `git init` only when project/ has no .git of its own. @@LOSTBASE when the repository no longer has $1 (the
    # change is then counted from nothing). @@SAME when there is nothing to record, else @@COMMIT= and the change.
    read_message
    [ -e .git ] || { G init -q . >/dev/null || fail 'git init'; }
    if [ -n "$1" ] && ! G cat-file -e "$1^{commit}" 2>/dev/null; then
      set -- '' 1
      echo '@@LOSTBASE'
    fi
    add_all
    if [ -n "$1" ] && [ "$2" != 1 ]; then
      cr_t=$(G write-tree) || fail 'git write-tree'
      if [ "$cr_t" = "$(G rev-parse -q --verify "$1^{tree}")" ]; then
        echo '@@SAME'
        exit 0
      fi
    fi
    commit_index
    printf '@@COMMIT=%s\n' "$cr_c"
    stat_of "$1" "$cr_c"
    ;;
  restore)
    # project/ becomes exactly the tree of $1 (files git tracks there; ignored files stay), as a new commit; the
    # change is counted against $2. The caller makes a checkpoint of changes made outside a build first.
    read_message
    [ -e .git ] || fail 'project/ has no git repository'
    if ! G cat-file -e "$1^{commit}" 2>/dev/null; then
      echo '@@NOTFOUND'
      exit 0
    fi
    add_all
    G read-tree -u --reset "$1" || fail 'git read-tree'
    commit_index
    printf '@@COMMIT=%s\n' "$cr_c"
    stat_of "$2" "$cr_c"
    ;;
  diff)
    # The unified diff from $1 to $2, cut after $3 bytes (binary files only named).
    [ -e .git ] || fail 'project/ has no git repository'
    cr_b=$1
    [ -n "$cr_b" ] || cr_b=$(G hash-object -t tree /dev/null) || fail 'git hash-object'
    # Checked before the pipe, whose status is head's.
    if ! { G cat-file -e "$cr_b" && G cat-file -e "$2"; } 2>/dev/null; then
      echo '@@NOTFOUND'
      exit 0
    fi
    printf '@@DIFF\n'
    # The prefixes pinned: a repository's own diff.noprefix or diff.mnemonicPrefix would change them.
    G diff --no-ext-diff --no-textconv --no-color --src-prefix=a/ --dst-prefix=b/ -M "$cr_b" "$2" -- | head -c "$3"
    ;;
  file-at)
    # A file at commit $1, its path on stdin (the `x` keeps a path's trailing newlines from the command
    # substitution): @@MISSING when the commit has no such path, @@TYPE= when it is no file, else @@SIZE= and (when
    # at most $2 bytes) @@DATA followed by the bytes.
    [ -e .git ] || fail 'project/ has no git repository'
    read_message
    # shellcheck disable=SC2059
    cr_p=$(
      printf "$cr_msg"
      printf x
    )
    cr_p=${cr_p%x}
    cr_t=$(G cat-file -t "$1:$cr_p" 2>/dev/null) || {
      echo '@@MISSING'
      exit 0
    }
    if [ "$cr_t" != blob ]; then
      printf '@@TYPE=%s\n' "$cr_t"
      exit 0
    fi
    cr_s=$(G cat-file -s "$1:$cr_p") || fail 'git cat-file -s'
    printf '@@SIZE=%s\n' "$cr_s"
    [ "$cr_s" -le "$2" ] || exit 0
    printf '@@DATA\n'
    G cat-file blob "$1:$cr_p"
    ;;
  *) fail "no such action: $cr_action" ;;
esac
