#!/bin/bash
# A fresh machine must pass: build a minimal Debian 12 (debootstrap
# --variant=minbase: no compiler, mawk, no /usr/bin/time) in a scratch
# directory, and in it
#   1. when a .deb is given, install it with apt-get (its Depends only) and
#      check that `joulestat --version` and `man joulestat` work from it;
#   2. run the two commands of README.md's "Set-up (Debian 12)" as written,
#      in a copy of this tree that every user can enter.
# Every way out unmounts what was mounted, ends what runs in the chroot and
# removes the directory.  Needs root.
#
#   scripts/ci-fresh.sh [build-deb/joulestat_VERSION_ARCH.deb]
#
# Exit status: 0 passed, or skipped (the line says why: not root, no
# debootstrap, no mirror reachable); 1 failed.
# Environment: MIRROR (default: the host's Debian mirror), SUITE (bookworm).
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
deb=${1:-}
SUITE=${SUITE:-bookworm}
prog=ci-fresh

say() { echo "$prog: $*"; }
skip() {
	say "SKIP: $*"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap)"
[ -z "$deb" ] || [ -r "$deb" ] || { say "no package $deb"; exit 1; }

# The host's own Debian mirror, so that the chroot reaches what the host does.
if [ -z "${MIRROR:-}" ]; then
	MIRROR=$(sed -n -e 's/^URIs: *\([^ ]*\/debian\)\/* *$/\1/p' \
	    -e 's/^deb  *\(http[^ ]*\/debian\)\/*  *.*bookworm.*/\1/p' \
	    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n 1) || :
	MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi

root=$(mktemp -d "${TMPDIR:-/var/tmp}/joulestat-fresh.XXXXXX")
# As /proc/PID/root shows it: no symbolic link on the way.
root=$(cd "$root" && pwd -P)
# mktemp makes it 0700, which would be the chroot's "/": no other user
# could enter anything.
chmod 755 "$root"
log=$root.debootstrap.log

# Is anything still mounted at or under the chroot?
mounted() {
	awk -v r="$root" '$5 == r || index($5, r "/") == 1 { found = 1 } END { exit !found }' \
	    /proc/self/mountinfo
}

cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	# What runs inside the chroot (daemons a package started, a test left
	# behind) holds its mounts: end it first.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in dev sys proc; do
		umount -R "$root/$m" 2>/dev/null || :
	done
	if mounted; then
		umount -R -l "$root" 2>/dev/null || :
	fi
	if mounted; then
		say "still mounted under $root; left in place"
		rc=1
	else
		rm -rf --one-file-system "$root"
	fi
	rm -f "$log"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

say "debootstrap --variant=minbase $SUITE from $MIRROR"
start=$(date +%s)
debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$log" 2>&1 &
if ! wait $!; then
	if grep -Eq 'Failed getting release file|Couldn.t download|Temporary failure|Could not resolve|unable to fetch|Connection (refused|timed out)' "$log"; then
		tail -n 3 "$log"
		rm -f "$log"
		skip "debootstrap cannot reach $MIRROR"
	fi
	tail -n 20 "$log"
	rm -f "$log"
	say "debootstrap failed"
	exit 1
fi
rm -f "$log"
say "chroot ready in $(($(date +%s) - start)) s"

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
# Packages installed in the chroot must not start daemons there.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# in_root CMD: run a shell command in the chroot as root, with a clean
# environment such as a fresh login would have.  In the background, so
# that a signal to this script is handled at once and not after it.
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CI="${CI:-}" \
	    /bin/bash -c "set -eu -o pipefail; $1" </dev/null &
	wait $!
}

if [ -z "$deb" ]; then
	say "no package given (make deb builds one): README's commands only"
else
	say "installing $(basename "$deb") with its dependencies, and man-db"
	cp "$deb" "$root/tmp/"
	in_root "apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends \
	    /tmp/$(basename "$deb") man-db >/tmp/apt.log 2>&1 || { tail -n 20 /tmp/apt.log; exit 1; }"
	version=$(dpkg-deb -f "$deb" Version)
	got=$(in_root "joulestat --version" 2>&1) || :
	[ "$got" = "joulestat $version" ] ||
	    { say "FAIL: joulestat --version says '$got', the package is $version"; exit 1; }
	in_root "man -P cat joulestat 2>&1" >"$root/tmp/man.txt" || :
	grep -q 'measure the time and energy' "$root/tmp/man.txt" ||
	    { say "FAIL: man joulestat: $(head -n 5 "$root/tmp/man.txt")"; exit 1; }
	in_root "man -w joulestat-plot >/dev/null && [ -r /usr/share/bash-completion/completions/joulestat ]" ||
	    { say "FAIL: no man joulestat-plot or no bash completion"; exit 1; }
	say "package: '$got', man joulestat: $(wc -l <"$root/tmp/man.txt") lines"
	in_root "apt-get purge -y -q --autoremove joulestat man-db >/dev/null 2>&1"
fi

# A copy of the tree as a clone has it (tracked files, and new ones not
# ignored), where any user can enter: the tests run some things as another.
mkdir -p "$root/srv/joulestat"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard | tar --null -T - -c) |
	    tar -x -C "$root/srv/joulestat"
else
	(cd "$top" && tar -c --exclude=./.git --exclude='./build*' .) | tar -x -C "$root/srv/joulestat"
fi

# README's commands, as a user would copy them.
cmds=$(awk '/^## Set-up/ { f = 1; next }
	f && /^##/ { exit }
	f && /^    [^ ]/ { sub(/#.*/, ""); sub(/^ +/, ""); sub(/ +$/, ""); print; n++; next }
	f && n && /^[^ ]/ { exit }' "$top/README.md")
[ -n "$cmds" ] || { say "no commands under README.md's Set-up heading"; exit 1; }
say "running README.md's commands: $(echo "$cmds" | paste -sd ';' | sed 's/;/; /g')"
start=$(date +%s)
in_root "cd /srv/joulestat && $(echo "$cmds" | paste -sd '&' | sed 's/&/ \&\& /g')"
say "passed in $(($(date +%s) - start)) s"
