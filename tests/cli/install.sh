#!/bin/bash
# make install honours DESTDIR, PREFIX and MANPREFIX, and installs the
# binary, the man page and the bash completion; make uninstall removes
# them.  make runs in the source tree on the build directory under test,
# and -o keeps it from rebuilding the binary.
. "$(dirname "$0")/lib.sh"

top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=$(cd "$(dirname "$JS_WORK")/.." && pwd)

# mk TARGET VAR=VALUE...: make in the source tree, never rebuilding.
mk() {
	try -t 60 make -C "$top" --no-print-directory BUILD="$build" \
	    -o "$build/joulestat" "$@"
}

have_make() {
	command -v make >/dev/null || skip "no make"
	[ -x "$build/joulestat" ] || skip "no $build/joulestat"
}

test_install_prefix_usr() {
	have_make
	mk install DESTDIR="$PWD/root" PREFIX=/usr
	assert_rc 0
	[ -x root/usr/bin/joulestat ] || fail "no executable usr/bin/joulestat"
	[ -s root/usr/share/man/man1/joulestat.1 ] || fail "no usr/share/man/man1/joulestat.1"
	c=root/usr/share/bash-completion/completions
	grep -q 'complete -F _joulestat joulestat$' $c/joulestat 2>/dev/null ||
	    fail "no bash completion in $c/joulestat"
	[ "$(readlink $c/joulestat-plot)" = joulestat ] || fail "no $c/joulestat-plot link"
	try root/usr/bin/joulestat --version
	assert_rc 0
}

test_install_manprefix() {
	have_make
	mk install DESTDIR="$PWD/root" PREFIX=/opt/js MANPREFIX=/opt/js/man
	assert_rc 0
	[ -x root/opt/js/bin/joulestat ] || fail "no executable opt/js/bin/joulestat"
	[ -s root/opt/js/man/man1/joulestat.1 ] || fail "MANPREFIX was not honoured"
}

test_uninstall() {
	have_make
	mk install DESTDIR="$PWD/root" PREFIX=/usr
	assert_rc 0
	mk uninstall DESTDIR="$PWD/root" PREFIX=/usr
	assert_rc 0
	[ ! -e root/usr/bin/joulestat ] || fail "uninstall left bin/joulestat"
	[ ! -e root/usr/share/man/man1/joulestat.1 ] || fail "uninstall left the man page"
	[ -z "$(ls root/usr/share/bash-completion/completions)" ] ||
	    fail "uninstall left $(ls root/usr/share/bash-completion/completions)"
}

t_run "make install DESTDIR PREFIX=/usr installs binary, man page, completion" test_install_prefix_usr
t_run "make install honours MANPREFIX" test_install_manprefix
t_run "make uninstall removes what install put" test_uninstall
t_done
