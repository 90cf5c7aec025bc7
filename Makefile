# Keel top-level Makefile. `make` builds src/keel-server; see README.md for the rest.
CXX      ?= g++
OPT      ?= -O2 -DNDEBUG
WERROR   := $(if $(CI),-Werror,)
CXXFLAGS := -std=c++20 $(OPT) -g -Wall -Wextra $(WERROR) -fno-omit-frame-pointer \
            -Isrc -I/usr/include/lua5.1 $(EXTRA_CXXFLAGS)
JEMALLOC ?= -ljemalloc
LDLIBS   := -luv -luring $(JEMALLOC) -llua5.1 -l:liblua5.1-cjson.so.0 -l:liblua5.1-bitop.so.0 -lcrypto -llzf -lpthread -ldl -lm
BUILD    ?= build
NPROC    := $(shell nproc 2>/dev/null || echo 2)

SRCS      := $(shell find src -name '*.cc' ! -name main.cc | sort)
OBJS      := $(SRCS:%.cc=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/src/main.o
TEST_SRCS := $(shell find tests/cpp -name '*.cc' 2>/dev/null | sort)
TEST_OBJS := $(TEST_SRCS:%.cc=$(BUILD)/%.o)
SERVER    := src/keel-server
CHECK_RDB := src/keel-check-rdb
CHECK_AOF := src/keel-check-aof
UNIT      := $(BUILD)/keel-unit
LOADGEN   := $(BUILD)/keel-loadgen
NULLSRV   := $(BUILD)/keel-nullserver

.PHONY: all deps run test test-quick test-unit test-tcl bench asan test-asan check-layers check-codegen clean \
        fuzz fuzz-deps fuzz-build fuzz-seeds
all: $(SERVER) $(CHECK_RDB) $(CHECK_AOF)

deps:
	@bash deps/install.sh

# -rdynamic exports the server's own functions to the dynamic symbol table, so the crash
# report's stack trace (base/crash.cc) names them.
$(SERVER): $(OBJS) $(MAIN_OBJ)
	$(CXX) $(CXXFLAGS) -rdynamic -o $@ $^ $(LDLIBS)

# keel-check-rdb and keel-check-aof are the server binary under other names (as redis-check-rdb
# and redis-check-aof are redis-server).
$(CHECK_RDB): $(SERVER)
	ln -sf keel-server $@

$(CHECK_AOF): $(SERVER)
	ln -sf keel-server $@

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

# The benchmark's load generator (utils/bench/loadgen.cc): standalone, nothing from src/.
$(LOADGEN): utils/bench/loadgen.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -o $@ $<

# The benchmark's floor server (utils/bench/nullserver.cc): answers +OK to everything.
$(NULLSRV): utils/bench/nullserver.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -o $@ $< -luring

$(UNIT): $(OBJS) $(TEST_OBJS)
	$(CXX) $(CXXFLAGS) -o $@ $^ -lgtest -lgtest_main $(LDLIBS)

run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(SERVER)
	./$(SERVER) ./redis.conf

check-layers:
	@bash utils/check_layers.sh

check-codegen: $(SERVER)
	@bash utils/check_codegen.sh $(SERVER)

test-unit: $(UNIT)
	./$(UNIT) --gtest_brief=1

test-tcl: $(SERVER)
	tclsh tests/runtest --server ./$(SERVER) $(TCL_ARGS)

# The one command CI and the README use: install, build, layer check, unit tests, fuzz seed
# replay, Tcl suite, a bounded command-fuzz run against redis-server, then all of it again on
# the ASan + UBSan build (test-asan). `make test-quick` is the same without the ASan half.
test: test-quick
	@$(MAKE) --no-print-directory test-asan

test-quick: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT) $(LOADGEN) $(NULLSRV) $(FUZZ_SEED_BINS)
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory check-codegen
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory fuzz-seeds
	@$(MAKE) --no-print-directory test-tcl
	@$(MAKE) --no-print-directory test-cmdfuzz

bench: deps $(SERVER) $(LOADGEN) $(NULLSRV)
	bash utils/bench/run.sh $(BENCH_ARGS)

# ASan + UBSan build in its own directory, with the C library allocator (sanitizers replace
# malloc, so jemalloc is left out). `make test-asan` runs the unit tests and the Tcl suite on it,
# with LeakSanitizer on: a server that leaks exits non-zero at its shutdown, which the Tcl
# runner and cmdfuzz report as a crash (servers stopped with SIGKILL are not checked).
ASAN_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -DKEEL_NO_JEMALLOC
asan:
	@$(MAKE) --no-print-directory -j$(NPROC) BUILD=build-asan OPT="$(ASAN_FLAGS)" JEMALLOC= \
	  SERVER=src/keel-server-asan src/keel-server-asan build-asan/keel-unit

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1 ./build-asan/keel-unit --gtest_brief=1
	ASAN_OPTIONS=detect_leaks=1 tclsh tests/runtest --server ./src/keel-server-asan $(TCL_ARGS)
	ASAN_OPTIONS=detect_leaks=1 /usr/bin/python3 tests/fuzz/cmdfuzz.py --keel ./src/keel-server-asan \
	  --seed $(CMDFUZZ_SEED) --count 1000000 --seconds 25 $(CMDFUZZ_ARGS)

# Coverage-guided fuzzing with libFuzzer (clang 14 + ASan + UBSan; see tests/fuzz/README.md).
# `make fuzz` builds every target into build-fuzz/ and runs each for FUZZ_SECONDS with its seed
# corpus; `make fuzz-<name>` runs one. New inputs go to build-fuzz/corpus/<name>/ (the seeds are
# copied there first, so nothing is ever written into tests/fuzz/), crashes to
# build-fuzz/artifacts/<name>/. The library code is built without NDEBUG so KEEL_DCHECKs run.
FUZZ_CXX      ?= clang++-14
FUZZ_SECONDS  ?= 60
FUZZ_ARGS     ?=
FUZZ_BUILD    := build-fuzz
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CXXFLAGS := -std=c++20 -O1 -g -fno-omit-frame-pointer -Wall -Wextra $(WERROR) \
                 -DKEEL_NO_JEMALLOC -Isrc -I/usr/include/lua5.1
FUZZ_TARGETS  := resp_parser inline_parser listpack intset ziplist quicklist glob numbers lua_value rdb_load hll
FUZZ_BASE     := src/base/cpu_affinity.cc src/base/crash.cc src/base/log.cc src/base/memory.cc src/base/numbers.cc src/base/util_random.cc
# Library sources (besides FUZZ_BASE) and libraries each target links.
FUZZ_SRCS_resp_parser   := src/protocol/resp_parser.cc
FUZZ_SRCS_inline_parser := src/protocol/resp_parser.cc
FUZZ_SRCS_listpack      := src/ds/listpack.cc
FUZZ_SRCS_intset        := src/ds/intset.cc
FUZZ_SRCS_hll           := src/ds/hyperloglog.cc
FUZZ_SRCS_ziplist       := src/ds/ziplist.cc src/ds/listpack.cc
FUZZ_SRCS_quicklist     := src/ds/quicklist.cc src/ds/listpack.cc
FUZZ_LIBS_quicklist     := -llzf
FUZZ_SRCS_glob          := src/base/glob.cc
FUZZ_SRCS_numbers       :=
FUZZ_SRCS_lua_value     := src/scripting/lua_value.cc src/protocol/reply_writer.cc
FUZZ_LIBS_lua_value     := -llua5.1
# The loader with everything under it (layers base to persistence; no scripting, no server).
FUZZ_SRCS_rdb_load      := $(filter-out $(FUZZ_BASE),$(filter src/base/% src/ds/% src/types/% src/keyspace/% src/persistence/%,$(SRCS)))
FUZZ_LIBS_rdb_load      := -llzf

fuzz-deps:
	@bash deps/install.sh fuzz

fuzz-build: fuzz-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# Library objects: coverage instrumentation without libFuzzer's main.
$(FUZZ_BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

define FUZZ_TARGET_RULES
$(FUZZ_BUILD)/fuzz_$(1): tests/fuzz/$(1).cc $$(patsubst %.cc,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_BASE) $$(FUZZ_SRCS_$(1)))
	@mkdir -p $(FUZZ_BUILD)/obj/tests/fuzz
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -MMD -MP -MF $(FUZZ_BUILD)/obj/tests/fuzz/$(1).d \
	  -o $$@ $$< $$(filter %.o,$$^) $$(FUZZ_LIBS_$(1))

.PHONY: fuzz-$(1)
fuzz-$(1): fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BUILD)/fuzz_$(1)
	@bash tests/fuzz/run.sh $(1) $(FUZZ_SECONDS) $(FUZZ_ARGS)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

fuzz: fuzz-build
	@fail=0; for t in $(FUZZ_TARGETS); do bash tests/fuzz/run.sh $$t $(FUZZ_SECONDS) $(FUZZ_ARGS) || fail=1; done; exit $$fail

# Seed replay without clang (part of `make test`): every target built with $(CXX) against the
# server's objects and a plain main() (tests/fuzz/standalone_main.cc), run once on each seed.
FUZZ_SEED_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz-seeds/%)
$(BUILD)/fuzz-seeds/%: tests/fuzz/%.cc $(BUILD)/tests/fuzz/standalone_main.o $(OBJS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -MF $@.d -o $@ $< $(BUILD)/tests/fuzz/standalone_main.o \
	  $(patsubst %.cc,$(BUILD)/%.o,$(FUZZ_BASE) $(FUZZ_SRCS_$*)) $(FUZZ_LIBS_$*) $(LDLIBS)

fuzz-seeds: $(FUZZ_SEED_BINS)
	@for t in $(FUZZ_TARGETS); do ./$(BUILD)/fuzz-seeds/$$t tests/fuzz/corpus/$$t || exit 1; done

# Command-level differential fuzzing against Debian's redis-server (tests/fuzz/cmdfuzz.py, see
# tests/fuzz/cmdfuzz/README.md). test-cmdfuzz is the bounded run for `make test` (fixed seed,
# stops after 25 s); fuzz-commands is the long run (1M commands, a random seed, printed).
# CMDFUZZ_ARGS adds options, e.g. CMDFUZZ_ARGS="--keel ./src/keel-server-asan --count 100000".
.PHONY: test-cmdfuzz fuzz-commands
CMDFUZZ_SEED ?= 1
test-cmdfuzz: $(SERVER)
	/usr/bin/python3 tests/fuzz/cmdfuzz.py --seed $(CMDFUZZ_SEED) --count 1000000 --seconds 25 $(CMDFUZZ_ARGS)

fuzz-commands: $(SERVER)
	/usr/bin/python3 tests/fuzz/cmdfuzz.py --count 1000000 --progress 250 $(CMDFUZZ_ARGS)

clean:
	rm -rf build build-asan build-fuzz src/keel-server src/keel-server-asan $(CHECK_RDB) $(CHECK_AOF)

-include $(OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJS:.o=.d)
-include $(wildcard $(FUZZ_BUILD)/obj/*/*/*.d $(FUZZ_BUILD)/obj/*/*/*/*.d $(BUILD)/fuzz-seeds/*.d)
