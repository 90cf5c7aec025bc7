# Keel top-level Makefile. `make` builds src/keel-server; see README.md for the rest.
CXX      ?= g++
OPT      ?= -O2 -DNDEBUG
WERROR   := $(if $(CI),-Werror,)
CXXFLAGS := -std=c++20 $(OPT) -g -Wall -Wextra $(WERROR) -fno-omit-frame-pointer \
            -Isrc -I/usr/include/lua5.1 $(EXTRA_CXXFLAGS)
JEMALLOC ?= -ljemalloc
LDLIBS   := -luv $(JEMALLOC) -llua5.1 -l:liblua5.1-cjson.so.0 -l:liblua5.1-bitop.so.0 -lcrypto -llzf -lpthread -ldl -lm
BUILD    ?= build
NPROC    := $(shell nproc 2>/dev/null || echo 2)

SRCS      := $(shell find src -name '*.cc' ! -name main.cc | sort)
OBJS      := $(SRCS:%.cc=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/src/main.o
TEST_SRCS := $(shell find tests/cpp -name '*.cc' 2>/dev/null | sort)
TEST_OBJS := $(TEST_SRCS:%.cc=$(BUILD)/%.o)
SERVER    := src/keel-server
UNIT      := $(BUILD)/keel-unit
LOADGEN   := $(BUILD)/keel-loadgen

.PHONY: all deps run test test-unit test-tcl bench asan test-asan check-layers check-codegen clean
all: $(SERVER)

deps:
	@bash deps/install.sh

$(SERVER): $(OBJS) $(MAIN_OBJ)
	$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

# The benchmark's load generator (utils/bench/loadgen.cc): standalone, nothing from src/.
$(LOADGEN): utils/bench/loadgen.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -o $@ $<

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

# The one command CI and the README use: install, build, layer check, unit tests, Tcl suite.
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT) $(LOADGEN)
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory check-codegen
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-tcl

bench: deps $(SERVER) $(LOADGEN)
	bash utils/bench/run.sh $(BENCH_ARGS)

# ASan + UBSan build in its own directory, with the C library allocator (sanitizers replace
# malloc, so jemalloc is left out). `make test-asan` runs the unit tests and the Tcl suite on it.
ASAN_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -DKEEL_NO_JEMALLOC
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="$(ASAN_FLAGS)" JEMALLOC= \
	  SERVER=src/keel-server-asan src/keel-server-asan build-asan/keel-unit

test-asan: asan
	ASAN_OPTIONS=detect_leaks=0 ./build-asan/keel-unit --gtest_brief=1
	ASAN_OPTIONS=detect_leaks=0 tclsh tests/runtest --server ./src/keel-server-asan $(TCL_ARGS)

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
	rm -rf build build-asan src/keel-server src/keel-server-asan

-include $(OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJS:.o=.d)
