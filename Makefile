# Flux: the front door. `make demo` and `make test` are the two commands the
# README names; everything else is here for developers.
#
#   make            build build/flux, build/libflux.a, build/libflux.so
#   make test       build, then run every test (unit, language goldens, CLI)
#   make asan       the same tests under AddressSanitizer + UBSan (build/asan)
#   make tsan       ThreadSanitizer (build/tsan): 8 threads x 1000 calls on one
#                   program while a learner installs versions; no report allowed
#   make demo       install what is missing, build, run the guided demo
#   make fuzz       libFuzzer: generated well-typed programs through check, lower
#                   and run (FUZZ_SECONDS=60), then the parser on raw bytes
#                   (FUZZ_PARSE_SECONDS=60)
#   make proofs     check the Coq lemmas of proofs/
#   make bench      the interpreter against Lua and Python; the native tier against C and
#                   LuaJIT (bench/native.sh); the particle step on the CPU and on OpenCL,
#                   and the device cost model's choices (bench/devices.sh); the start of a whole
#                   `flux run` against lua5.4 -e and python3 -c; the cost of recording;
#                   the evolved fibonacci against GMP and C; the sieve
#                   against primesieve; the sort kernels against qsort,
#                   std::sort and Highway's vqsort, and the evolved sort end to end; the matrix
#                   kernel against OpenBLAS; the learned proposer's first
#                   choices on held-out intents against the table's order;
#                   one query a process, computed against kept in the store; one
#                   call from Python against python3 -c pass and flux run
#   make format     clang-format the sources
#   make install    flux, libflux (.so.0 and .a), flux/flux.h, flux.pc, the
#                   Python package and the man pages under PREFIX (/usr/local),
#                   staged under DESTDIR; make uninstall removes them
#
# Missing Debian packages are installed by scripts/install-deps, which the
# demo calls first (what building and running needs), and by
# scripts/install-deps --test, which the test targets call (the tests' and
# benchmarks' tools too); both do nothing when all is present.

BUILD    ?= build
CC       ?= cc
SANITIZE ?=
WARN     := -Wall -Wextra -Werror -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes \
            -Wmissing-prototypes -Wimplicit-fallthrough -Wno-missing-field-initializers
OPT      ?= -O2 -g
CFLAGS   := $(OPT) -std=c11 $(WARN) -D_POSIX_C_SOURCE=200809L -fPIC -fvisibility=hidden -pthread \
            -Isrc -Iinclude -I$(BUILD)/gen
# C++ only where a library is C++ (src/exec/vqsort_plugin.cc: Highway's vqsort, in
# the plugin libflux_vqsort.so)
CXXFLAGS := $(OPT) -std=c++17 -Wall -Wextra -Werror -Wshadow -fPIC -fvisibility=hidden -pthread \
            -fno-exceptions -fno-rtti -Isrc
# Z3 and Graphviz are not linked: they are opened when first used
# (src/base/dynlib.c), by the soname of the library a -l would link
LDLIBS   := -lgmp -ljansson -lsqlite3 -lsodium -lhwloc -lm -pthread
ifeq ($(SANITIZE),thread)
CFLAGS   += -fsanitize=thread -fno-omit-frame-pointer -DFX_SMALL_CHUNKS
CXXFLAGS += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=thread
endif
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
            -DFX_SMALL_CHUNKS
CXXFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif

soname    = $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) 2>/dev/null | \
              awk '/SONAME/ {print $$2}')
Z3_SONAME  := $(or $(call soname,z3),libz3.so.4)
GVC_SONAME := $(or $(call soname,gvc),libgvc.so.6)
MHD_SONAME := $(or $(call soname,microhttpd),libmicrohttpd.so.12)

# The MPI device's plugin (docs/devices.md, "MPI"): the one object linked
# against Open MPI, built only where pkg-config finds it, and opened by
# src/hw/mpi.c only under mpirun; its headers as system ones (-isystem), as
# they do not pass our warnings
MPI_PLUGIN_SRC := src/hw/mpi_plugin.c
HAVE_MPI   := $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1)
MPI_PLUGIN := $(if $(HAVE_MPI),$(BUILD)/libflux_mpi.so)
MPI_CFLAGS  = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags ompi-c))
MPI_LIBS    = $(shell pkg-config --libs ompi-c)

# src/web/ (`flux serve`) is linked into the flux binary alone: libflux does
# not pull a web server into the programs that embed it
LIB_SRC  := $(sort $(filter-out src/web/% $(MPI_PLUGIN_SRC),$(wildcard src/*/*.c)))
WEB_SRC  := $(sort $(wildcard src/web/*.c))
WEB_ASSETS := index.html app.js app.css
WEB_OBJ  := $(WEB_SRC:%.c=$(BUILD)/obj/%.o) \
            $(patsubst %,$(BUILD)/obj/gen/web_%.o,$(subst .,_,$(WEB_ASSETS)))
LIB_CXX  := $(sort $(wildcard src/*/*.cc))
CLI_SRC  := $(sort $(wildcard cli/*.c))
GEN_SRC  := $(BUILD)/gen/prelude_src.c
MIGRATE_SQL := $(sort $(wildcard src/trace/migrate_*.sql))
STDLIB   := $(sort $(wildcard lib/std/*.flux))
GEN_OBJ  := $(BUILD)/obj/gen/prelude_src.o $(BUILD)/obj/gen/schema_src.o \
            $(BUILD)/obj/gen/stdlib_src.o \
            $(MIGRATE_SQL:src/trace/%.sql=$(BUILD)/obj/gen/%_src.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_OBJ)
# Highway's vqsort as a plugin (src/exec/vqsort.h): loading libhwy costs
# half of a run's start-up, so only a sort that asks for it pays
VQSORT_PLUGIN := $(BUILD)/libflux_vqsort.so
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/*_test.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# the generator of well-typed programs and its harness (docs/testing.md)
GEN_FUZZ_SRC := tests/fuzz/gen.c tests/fuzz/gen_src.c tests/fuzz/gen_types.c \
                tests/fuzz/gen_expr.c tests/fuzz/gen_prog.c tests/fuzz/gen_run.c
GEN_FUZZ_OBJ := $(GEN_FUZZ_SRC:%.c=$(BUILD)/obj/%.o)

.PHONY: all test asan tsan demo fuzz deps deps-test format clean bench proofs install uninstall
all: $(BUILD)/flux $(BUILD)/libflux.a $(BUILD)/libflux.so $(UNIT_BIN) $(BUILD)/tests/gen_fuzz \
     $(BUILD)/tests/web_fill $(MPI_PLUGIN) $(VQSORT_PLUGIN)

deps:
	@scripts/install-deps

# the tests' and benchmarks' tools too (Coq, chromium, the anchors, ...)
deps-test:
	@scripts/install-deps --test

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/src/proof/smt.o: CFLAGS += -DFX_Z3_SONAME='"$(Z3_SONAME)"'
$(BUILD)/obj/src/graph/svg.o: CFLAGS += -DFX_GVC_SONAME='"$(GVC_SONAME)"'
$(BUILD)/obj/src/web/serve.o: CFLAGS += -DFX_MHD_SONAME='"$(MHD_SONAME)"'

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-missing-variable-declarations -c $< -o $@

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 tools/embed.c -o $@

# The prelude is written in Flux (lib/*.flux) and the store's schema in SQL
# (src/trace/*.sql); both are embedded in the binary at build time.
$(GEN_SRC): lib/prelude.flux $(BUILD)/embed
	@mkdir -p $(dir $@)
	$(BUILD)/embed fx_prelude_source lib/prelude.flux > $@

# lib/std/NAME.flux: the module `import std.NAME` reads (docs/stdlib.md)
$(BUILD)/gen/stdlib_src.c: $(STDLIB) $(BUILD)/embed
	@mkdir -p $(dir $@)
	$(BUILD)/embed --modules fx_stdlib $(STDLIB) > $@

$(BUILD)/gen/schema_src.c: src/trace/schema.sql $(BUILD)/embed
	@mkdir -p $(dir $@)
	$(BUILD)/embed fx_schema_sql $< > $@

# migrate_N_M.sql becomes the symbol fx_migrate_N_M_sql
$(BUILD)/gen/migrate_%_src.c: src/trace/migrate_%.sql $(BUILD)/embed
	@mkdir -p $(dir $@)
	$(BUILD)/embed fx_migrate_$*_sql $< > $@

$(BUILD)/libflux.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# the library's ABI version: its SONAME is libflux.so.$(SO_MAJOR)
SO_MAJOR := 0
SO_VERSION := 0.1.0

$(BUILD)/libflux.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libflux.so.$(SO_MAJOR) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/flux: $(CLI_OBJ) $(WEB_OBJ) $(BUILD)/libflux.a
	$(CC) $(LDFLAGS) $(CLI_OBJ) $(WEB_OBJ) $(BUILD)/libflux.a $(LDLIBS) -o $@

$(BUILD)/obj/src/hw/mpi_plugin.o: CFLAGS += $(MPI_CFLAGS)

$(BUILD)/libflux_mpi.so: $(BUILD)/obj/src/hw/mpi_plugin.o
	$(CC) -shared $(LDFLAGS) $< $(MPI_LIBS) -o $@

$(VQSORT_PLUGIN): $(LIB_CXX:%.cc=$(BUILD)/obj/%.o)
	$(CXX) -shared $(LDFLAGS) $^ -lhwy_contrib -lhwy -o $@

# the page's assets, compiled in: fx_web_index_html, fx_web_app_js, ...
# (kept: make would delete them as intermediates after each build)
.PRECIOUS: $(BUILD)/gen/web_%.c $(BUILD)/gen/migrate_%_src.c
$(BUILD)/gen/web_%.c: $(BUILD)/embed $(wildcard src/web/assets/*)
	@mkdir -p $(dir $@)
	$(BUILD)/embed fx_web_$* src/web/assets/$$(echo $* | sed 's/_\([a-z]*\)$$/.\1/') > $@

# the browser tests' store of many runs (tests/web/)
$(BUILD)/tests/web_fill: tests/web/fill.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libflux.a tests/fx_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/tests/gen_fuzz: tests/fuzz/gen_main.c $(GEN_FUZZ_OBJ) $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) tests/fuzz/gen_main.c $(GEN_FUZZ_OBJ) $(BUILD)/libflux.a $(LDFLAGS) \
	    $(LDLIBS) -o $@

test: deps-test
	@$(MAKE) --no-print-directory all
	@tests/run-tests.sh $(BUILD)

# intercept_tls_get_addr=0: LeakSanitizer (GCC 12's) crashes in its tracer
# on the dynamic TLS it recorded for a dlopen'ed libz3 in a process that
# also links libhwy ("Tracer caught signal 11", `flux proofs --verify`);
# without those blocks as roots it can only report more, never hide a leak
# under ASan the CLI tests run one at a time unless FLUX_TEST_JOBS says
# otherwise: its slowest tests have not been measured two at a time
asan: deps-test
	@$(MAKE) --no-print-directory BUILD=build/asan SANITIZE=1 OPT="-O1 -g" all
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 \
		UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=print_suppressions=0:suppressions=$(CURDIR)/tests/lsan.supp \
		FLUX_SMALL_CHUNKS=1 FLUX_TEST_JOBS=$${FLUX_TEST_JOBS:-1} tests/run-tests.sh build/asan

# setarch -R: TSan's shadow memory wants the address layout without ASLR
tsan: deps-test
	@$(MAKE) --no-print-directory BUILD=build/tsan SANITIZE=thread OPT="-O1 -g" \
		build/tsan/tests/engine_test build/tsan/tests/data_test
	@FX_ENGINE_THREADS=8 FX_ENGINE_CALLS=1000 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
		setarch -R build/tsan/tests/engine_test
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" setarch -R build/tsan/tests/data_test

# ---- installing (docs/api.md) ----

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
LIBDIR  := $(PREFIX)/lib
INCDIR  := $(PREFIX)/include
MANDIR  := $(PREFIX)/share/man
PYDIR   := $(LIBDIR)/python3/dist-packages
# what libflux links, for a static link (pkg-config --static)
PC_REQUIRES := gmp jansson sqlite3 libsodium hwloc

$(BUILD)/md2man: tools/md2man.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L $< -o $@

$(BUILD)/man/flux.1: docs/cli.md $(BUILD)/md2man
	@mkdir -p $(dir $@)
	$(BUILD)/md2man flux 1 "Flux manual" < $< > $@

$(BUILD)/man/flux.3: docs/api.md $(BUILD)/md2man
	@mkdir -p $(dir $@)
	$(BUILD)/md2man flux 3 "Flux library" < $< > $@

install: $(BUILD)/flux $(BUILD)/libflux.so $(BUILD)/libflux.a $(VQSORT_PLUGIN) $(BUILD)/man/flux.1 \
         $(BUILD)/man/flux.3
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/flux \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(PYDIR)/flux
	install -m 755 $(BUILD)/flux $(DESTDIR)$(BINDIR)/flux
	install -m 755 $(BUILD)/libflux.so $(DESTDIR)$(LIBDIR)/libflux.so.$(SO_VERSION)
	ln -sf libflux.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/libflux.so.$(SO_MAJOR)
	ln -sf libflux.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libflux.so
	install -m 644 $(BUILD)/libflux.a $(DESTDIR)$(LIBDIR)/libflux.a
	install -m 644 include/flux.h $(DESTDIR)$(INCDIR)/flux/flux.h
	install -m 644 $(BUILD)/man/flux.1 $(DESTDIR)$(MANDIR)/man1/flux.1
	install -m 644 $(BUILD)/man/flux.3 $(DESTDIR)$(MANDIR)/man3/flux.3
	install -d $(DESTDIR)$(LIBDIR)/flux
	install -m 755 $(VQSORT_PLUGIN) $(DESTDIR)$(LIBDIR)/flux/libflux_vqsort.so
	if [ -f $(BUILD)/libflux_mpi.so ]; then install -d $(DESTDIR)$(LIBDIR)/flux && \
	    install -m 755 $(BUILD)/libflux_mpi.so $(DESTDIR)$(LIBDIR)/flux/libflux_mpi.so; fi
	install -m 644 python/flux/__init__.py $(DESTDIR)$(PYDIR)/flux/__init__.py
	printf 'LIBRARY = "%s"\n' "$(LIBDIR)/libflux.so.$(SO_MAJOR)" \
	    > $(DESTDIR)$(PYDIR)/flux/_installed.py
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
	    'Name: flux' 'Description: Flux: programs as intents, learned and proved' \
	    'Version: $(SO_VERSION)' 'Requires.private: $(PC_REQUIRES)' \
	    'Libs: -L$${libdir} -lflux' 'Libs.private: -lm -pthread' \
	    'Cflags: -I$${includedir}/flux' > $(DESTDIR)$(LIBDIR)/pkgconfig/flux.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/flux $(DESTDIR)$(LIBDIR)/libflux.so.$(SO_VERSION) \
	    $(DESTDIR)$(LIBDIR)/libflux.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libflux.so \
	    $(DESTDIR)$(LIBDIR)/libflux.a $(DESTDIR)$(INCDIR)/flux/flux.h \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/flux.pc $(DESTDIR)$(MANDIR)/man1/flux.1 \
	    $(DESTDIR)$(MANDIR)/man3/flux.3 $(DESTDIR)$(PYDIR)/flux/__init__.py \
	    $(DESTDIR)$(PYDIR)/flux/_installed.py
	rm -rf $(DESTDIR)$(PYDIR)/flux/__pycache__
	rm -f $(DESTDIR)$(LIBDIR)/flux/libflux_mpi.so $(DESTDIR)$(LIBDIR)/flux/libflux_vqsort.so
	-rmdir $(DESTDIR)$(INCDIR)/flux $(DESTDIR)$(PYDIR)/flux $(DESTDIR)$(LIBDIR)/flux 2>/dev/null

demo: deps
	@$(MAKE) --no-print-directory all
	@$(BUILD)/flux demo

# The generator of well-typed programs for FUZZ_SECONDS, then the parser on
# raw bytes for FUZZ_PARSE_SECONDS (tests/fuzz/run-fuzz.sh, docs/testing.md).
FUZZ_SECONDS ?= 60
FUZZ_PARSE_SECONDS ?= 60
fuzz: deps-test
	@$(MAKE) --no-print-directory $(BUILD)/tests/gen_fuzz
	@$(MAKE) --no-print-directory BUILD=build/fuzz build/fuzz/gen/prelude_src.c \
		build/fuzz/gen/schema_src.c build/fuzz/gen/stdlib_src.c \
		$(MIGRATE_SQL:src/trace/%.sql=build/fuzz/gen/%_src.c)
	@PRELUDE_SRC=build/fuzz/gen/prelude_src.c FUZZ_LDLIBS="$(LDLIBS)" \
		FUZZ_PARSE_SECONDS=$(FUZZ_PARSE_SECONDS) GEN_FUZZ=$(BUILD)/tests/gen_fuzz \
		tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS) build/fuzz

format:
	clang-format -i $(LIB_SRC) $(CLI_SRC) src/*/*.h include/*.h

# The library lemmas the prover cites, checked by coqc (no Admitted, no axioms).
proofs: deps-test
	@proofs/check.sh

clean:
	rm -rf build
	rm -f proofs/*.vo proofs/*.vok proofs/*.vos proofs/*.glob proofs/.*.aux proofs/.lia.cache proofs/.nia.cache

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(GEN_FUZZ_OBJ:.o=.d) $(BUILD)/obj/src/hw/mpi_plugin.d

$(BUILD)/bench/record: bench/record.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/evolved: bench/evolved.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/primes: bench/primes.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -lprimesieve -o $@

$(BUILD)/bench/evolved_primes: bench/evolved_primes.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -lprimesieve -o $@

$(BUILD)/bench/evolved_sort: bench/evolved_sort.c bench/sort_std.cpp $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CXX) -O2 -Isrc -c bench/sort_std.cpp -o $(BUILD)/bench/evolved_sort_std.o
	$(CC) $(CFLAGS) bench/evolved_sort.c $(BUILD)/bench/evolved_sort_std.o $(BUILD)/libflux.a \
	    $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/sort: bench/sort.c bench/sort_std.cpp $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CXX) -O2 -Isrc -c bench/sort_std.cpp -o $(BUILD)/bench/sort_std.o
	$(CC) $(CFLAGS) bench/sort.c $(BUILD)/bench/sort_std.o $(BUILD)/libflux.a $(LDFLAGS) \
	    $(LDLIBS) -o $@

$(BUILD)/bench/sort_choice: bench/sort_choice.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/matmul: bench/matmul.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I/usr/include/x86_64-linux-gnu/openblas-pthread $< $(BUILD)/libflux.a \
	    $(LDFLAGS) $(LDLIBS) -lopenblas -o $@

$(BUILD)/bench/query: bench/query.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/csv_anchor: bench/csv_anchor.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 $< -lhwy_contrib -lhwy -o $@

$(BUILD)/bench/regret: bench/regret.c $(BUILD)/libflux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libflux.a $(LDFLAGS) $(LDLIBS) -o $@

bench: deps-test all $(BUILD)/bench/record $(BUILD)/bench/evolved $(BUILD)/bench/primes \
       $(BUILD)/bench/evolved_primes $(BUILD)/bench/sort $(BUILD)/bench/matmul \
       $(BUILD)/bench/query $(BUILD)/bench/evolved_sort $(BUILD)/bench/sort_choice \
       $(BUILD)/bench/regret $(BUILD)/bench/csv_anchor
	@bench/interp.sh
	@FLUX=$(BUILD)/flux bench/native.sh
	@FLUX=$(BUILD)/flux bench/devices.sh
	@FLUX=$(BUILD)/flux bench/start.sh
	@FLUX=$(BUILD)/flux FLUX_LIBRARY=$(CURDIR)/$(BUILD)/libflux.so bench/python_start.sh
	@FLUX=$(BUILD)/flux bench/expr_parse.sh
	@$(BUILD)/bench/record
	@BUILD=$(BUILD) bench/evolve.sh
	@$(BUILD)/bench/primes
	@d=$$(mktemp -d) && $(BUILD)/bench/evolved_primes $$d . ; rc=$$?; rm -rf $$d; exit $$rc
	@$(BUILD)/bench/sort quick
	@$(BUILD)/bench/sort_choice quick
	@$(BUILD)/bench/matmul
	@d=$$(mktemp -d) && $(BUILD)/bench/query $$d; rc=$$?; rm -rf $$d; exit $$rc
	@FLUX=$(BUILD)/flux bench/kept.sh
	@FLUX=$(BUILD)/flux BUILD=$(BUILD) bench/csv.sh
	@FLUX=$(BUILD)/flux bench/benchmarks_game.sh
	@FLUX=$(BUILD)/flux BENCH_SET=user bench/benchmarks_game.sh
	@d=$$(mktemp -d) && $(BUILD)/bench/evolved_sort $$d; rc=$$?; rm -rf $$d; exit $$rc
	@FLUX=$(BUILD)/flux bench/runaway.sh
	@FLUX=$(BUILD)/flux bench/proposer.sh
	@$(BUILD)/bench/regret
