#!/bin/sh
# Set up joulestat on Debian 12: install what is missing (apt-get as root,
# otherwise print the exact apt-get line and stop), build everything, and
# run the demo on the simulated GPU.
#   scripts/setup.sh              install, build, demo
#   scripts/setup.sh --deps-only  install only (used by .ci/run)
#   --extra                       also scripts/deps-extra: make deb, make
#                                 check-fresh and the real-Slurm test
set -eu
cd "$(dirname "$0")/.."

deps_only="" lists=scripts/deps
for a in "$@"; do
	case $a in
	--deps-only) deps_only=1 ;;
	--extra) lists="scripts/deps scripts/deps-extra" ;;
	*)
		echo "usage: scripts/setup.sh [--deps-only] [--extra]" >&2
		exit 2
		;;
	esac
done

# Every package the build and the tests need: scripts/deps, one per line.
PACKAGES=$(sed -e 's/#.*//' $lists | awk 'NF { print $1 }' | sort -u)

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "joulestat: missing Debian packages; run as root:" >&2
		echo "  apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
	echo "installing:$missing"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

[ -n "$deps_only" ] && exit 0
make -j2 all
make demo
