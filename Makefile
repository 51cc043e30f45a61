# joulestat: one hand-written GNU Makefile.
# Targets: all check check-asan check-valgrind bench demo install uninstall clean
#          deb check-fresh
#          fuzz fuzz-run

CC	?= cc
CFLAGS	?= -O2 -g
WARN	 = -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wwrite-strings -Wpointer-arith -Wundef
CPPFLAGS += -Iinclude -D_GNU_SOURCE
# popt, jansson and libcsv are linked into the binary: each shared library
# costs the loader time at every start, and a wrapper starts once per
# measured command (HACKING.md, "Start-up cost").  `make LINK_STATIC=`
# links them as shared libraries instead (libcsv's LGPL asks that users can
# relink it: this is how).  libm is not needed at all: the few functions
# used are inlined (MATHFLAGS); -lm stays for builds that do not inline them.
LINK_STATIC ?= -Wl,-Bstatic
LDLIBS	 = $(LINK_STATIC) -lpopt -ljansson -lcsv -Wl,-Bdynamic -ldl -lm
# sqrt, round and llround become instructions: no errno is ever read after
# them, and no floating-point exception flag is ever tested.
MATHFLAGS = -fno-math-errno -fno-trapping-math
# Only the libraries used are loaded; a smaller symbol hash for the loader.
LDOPT	 = -Wl,--as-needed -Wl,-O1
# Test code must build without a single warning.
TESTWARN = $(WARN) -Werror

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANPREFIX ?= $(PREFIX)/share/man
# Where bash-completion looks for a command's completion when it is first used.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR	?=
BUILD	?= build
VERSION	 = 0.1.0

SRC	 = $(sort $(wildcard src/*.c src/*/*.c))
OBJ	 = $(SRC:%.c=$(BUILD)/%.o)
# Everything the fuzz targets link: the parsers and what they call.  Both
# `make fuzz` and the corpus replay in `make check` build from this list.
PARSERS	 = src/lib/util.c src/proc/procfs.c src/sources/devsel.c src/cli/config.c \
	   src/cli/options.c src/cli/help.c src/lib/markline.c \
	   src/sources/drm_parse.c src/sources/drm_engine.c src/sources/rapl_parse.c \
	   src/sources/nvml_decode.c \
	   tests/sim/scenario.c tests/sim/scenario_time.c src/gate/gate_parse.c src/gate/baseline.c src/lib/csvin.c \
	   src/lib/jobinfo.c src/report/schema.c src/merge/read.c src/merge/merge.c src/merge/mergephase.c \
	   src/merge/mergeout.c src/lib/fmt.c src/lib/units.c src/cli/config_ci.c \
	   src/out/annotate.c src/out/doc.c src/out/markdown.c src/out/junit.c \
	   src/out/openmetrics.c \
	   src/proc/proctree.c src/proc/proctree_walk.c src/proc/cgroup.c src/proc/tracker.c src/proc/newpids.c
LIBOBJ	 = $(filter-out $(BUILD)/src/main.o,$(OBJ))
BIN	 = $(BUILD)/joulestat
# joulestat --plot looks for joulestat-plot next to itself first.
PLOT	 = $(BUILD)/joulestat-plot

UNITSRC	 = $(sort $(wildcard tests/unit/test_*.c))
UNITBIN	 = $(UNITSRC:tests/unit/%.c=$(BUILD)/tests/%)
SIMSRC	 = $(sort $(wildcard tests/sim/*.c))
SIMLIB	 = $(BUILD)/sim/libnvidia-ml.so.1
WORK	 = $(BUILD)/tests/js-work
CSVTOOL	 = $(BUILD)/tests/csvtool
JSONTOOL = $(BUILD)/tests/jsontool
FAILMALLOC = $(BUILD)/tests/failmalloc.so
FAILSYS	 = $(BUILD)/tests/failsys.so
SPAWNTIME = $(BUILD)/tests/spawntime
TIMERFLOOR = $(BUILD)/tests/timerfloor
SPAWNFLOOR = $(BUILD)/tests/spawnfloor
TESTBINS = $(UNITBIN) $(WORK) $(CSVTOOL) $(JSONTOOL) $(SIMLIB) $(FAILMALLOC) $(FAILSYS)

# Per-test timeouts are multiplied by this (slow or instrumented builds).
TIMEOUT_MULT ?= 1

.PHONY: all check check-asan check-valgrind bench demo install uninstall clean deb check-fresh

all: $(BIN) $(PLOT) $(SIMLIB) $(WORK)

$(PLOT): scripts/joulestat-plot
	@mkdir -p $(@D)
	cp scripts/joulestat-plot $@
	chmod 755 $@

$(BIN): $(OBJ)
	$(CC) $(CFLAGS) $(LDOPT) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DJOULESTAT_VERSION='"$(VERSION)"' $(CFLAGS) $(MATHFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(BUILD)/tests/test_%: tests/unit/test_%.c $(LIBOBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $< $(LIBOBJ) $(LDLIBS) -lcmocka

$(WORK): tests/workloads/js-work.c tests/workloads/js-work-tree.c tests/workloads/js-work.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -o $@ $(filter %.c,$^) -lm -pthread

$(CSVTOOL): tests/tools/csvtool.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $< -lcsv

$(JSONTOOL): tests/tools/jsontool.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $< -ljansson

$(SPAWNTIME): tests/tools/spawntime.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $<

$(TIMERFLOOR): tests/tools/timerfloor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $<

$(SPAWNFLOOR): tests/tools/spawnfloor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TESTWARN) -MMD -MP -o $@ $<

# A preload that makes the main program's own allocations fail on demand.
$(FAILMALLOC): tests/tools/failmalloc.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CFLAGS) $(TESTWARN) -fPIC -shared -o $@ $< -ldl

# A preload that makes the main program's timerfd_create, epoll_create1 or clone3 fail on demand.
$(FAILSYS): tests/tools/failsys.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CFLAGS) $(TESTWARN) -fPIC -shared -o $@ $< -ldl

# The simulated NVML: its own ABI transcription, nothing shared with src/.
$(SIMLIB): $(SIMSRC) $(wildcard tests/sim/*.h)
	@mkdir -p $(@D)
	$(CC) -Itests/sim -D_GNU_SOURCE $(CFLAGS) $(TESTWARN) -fPIC -shared \
	    -Wl,-soname,libnvidia-ml.so.1 -o $@ $(SIMSRC) -lm

check: $(BIN) $(PLOT) $(TESTBINS)
	BUILD=$(BUILD) TIMEOUT_MULT=$(TIMEOUT_MULT) WRAP="$(WRAP)" VERBOSE="$(VERBOSE)" ONLY="$(ONLY)" \
	    PARSERS="$(PARSERS)" sh tests/run.sh

# The same suite with AddressSanitizer and UndefinedBehaviorSanitizer.
check-asan:
	$(MAKE) BUILD=build-asan TIMEOUT_MULT=4 \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	    LDFLAGS="-fsanitize=address,undefined" check

# The suite with the joulestat binary run under valgrind memcheck.
check-valgrind: $(BIN) $(PLOT) $(TESTBINS)
	BUILD=$(BUILD) TIMEOUT_MULT=10 PARSERS="$(PARSERS)" \
	    WRAP="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite" \
	    sh tests/run.sh

bench: $(BIN) $(WORK) $(SIMLIB) $(SPAWNTIME) $(TIMERFLOOR) $(SPAWNFLOOR)
	BUILD=$(BUILD) sh scripts/bench.sh

demo: $(BIN) $(WORK) $(SIMLIB)
	BUILD=$(BUILD) sh scripts/demo.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/joulestat
	install -m 755 scripts/joulestat-plot $(DESTDIR)$(BINDIR)/joulestat-plot
	install -m 644 man/joulestat.1 $(DESTDIR)$(MANPREFIX)/man1/joulestat.1
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 644 completion/joulestat $(DESTDIR)$(COMPLETIONDIR)/joulestat
	ln -sf joulestat $(DESTDIR)$(COMPLETIONDIR)/joulestat-plot
	ln -sf joulestat.1 $(DESTDIR)$(MANPREFIX)/man1/joulestat-plot.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/joulestat $(DESTDIR)$(BINDIR)/joulestat-plot \
	    $(DESTDIR)$(MANPREFIX)/man1/joulestat.1 $(DESTDIR)$(MANPREFIX)/man1/joulestat-plot.1 \
	    $(DESTDIR)$(COMPLETIONDIR)/joulestat $(DESTDIR)$(COMPLETIONDIR)/joulestat-plot

clean:
	rm -rf build build-asan build-fuzz build-deb

# The Debian package (debian/), built from a copy of this tree in build-deb/
# so that dpkg-buildpackage writes the .deb there and not beside the tree,
# then checked by lintian: any tag but an informational one fails.
DEBDIR	 = build-deb
deb:
	rm -rf $(DEBDIR)
	mkdir -p $(DEBDIR)/joulestat-$(VERSION)
	tar -c --exclude=./.git --exclude='./build*' . | tar -x -C $(DEBDIR)/joulestat-$(VERSION)
	cd $(DEBDIR)/joulestat-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on warning,error $(DEBDIR)/*.changes

# README's set-up commands in a fresh minimal Debian 12 chroot, and the
# package from `make deb` (if built) installed there first.  Needs root.
check-fresh:
	bash scripts/ci-fresh.sh $(firstword $(wildcard $(DEBDIR)/joulestat_*.deb))

# libFuzzer targets (HACKING.md, "Tests"), one per parser: tests/fuzz/fuzz_*.c with
# clang, ASan and UBSan, linked with the parsers (compiled by clang too,
# with coverage) from an archive in build-fuzz/.  UBSan does not recover,
# so that undefined behaviour is a crash libFuzzer reports.
FUZZCC	 = clang
FUZZDIR	 = build-fuzz
FUZZFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	   -fno-sanitize-recover=all
FUZZSRC	 = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZBIN	 = $(FUZZSRC:tests/fuzz/%.c=$(FUZZDIR)/%)
FUZZOBJ	 = $(addprefix $(FUZZDIR)/,$(PARSERS:.c=.o))
FUZZLIB	 = $(FUZZDIR)/libparsers.a
FUZZ_SECONDS ?= 10

.PHONY: fuzz fuzz-run

fuzz: $(FUZZBIN)

$(FUZZDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZCC) $(CPPFLAGS) -Itests/sim $(FUZZFLAGS) -fsanitize=fuzzer-no-link $(WARN) \
	    -MMD -MP -c -o $@ $<

# scn_perr() in the simulator has no format attribute, which clang (not gcc) reports.
$(FUZZDIR)/tests/sim/scenario.o: WARN += -Wno-format-nonliteral

$(FUZZLIB): $(FUZZOBJ)
	rm -f $@
	ar rcs $@ $(FUZZOBJ)

$(FUZZDIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZLIB)
	$(FUZZCC) $(CPPFLAGS) -Itests/sim $(FUZZFLAGS) -fsanitize=fuzzer $(TESTWARN) -MMD -MP \
	    -o $@ $< $(FUZZLIB) -lpopt -lcsv -ljansson -lm

# Each target for FUZZ_SECONDS on its corpus; new inputs go to build-fuzz/.
fuzz-run: $(FUZZBIN)
	FUZZDIR=$(FUZZDIR) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZBIN)

-include $(FUZZOBJ:.o=.d) $(FUZZBIN:=.d)

-include $(OBJ:.o=.d) $(UNITBIN:=.d) $(WORK).d $(CSVTOOL).d $(JSONTOOL).d
