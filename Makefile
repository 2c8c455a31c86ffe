# The two commands of the README: `make run` and `make test`. Both install what a fresh
# Debian machine lacks (through apt-get, with sudo only when not root), then build.

SWIFT ?= swift
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the build and the tests need, with a file that proves each is there.
DEPS := libncursesw5-dev:/usr/include/ncursesw/curses.h \
        libsqlite3-dev:/usr/include/sqlite3.h \
        pkg-config:/usr/bin/pkg-config \
        tmux:/usr/bin/tmux

.PHONY: run test build release deps bench clean fuzz

run: deps build
	.build/debug/worldcup $(ARGS)

# The tests, then a short libFuzzer run of each fuzz target (about a minute with its build).
test: deps
	$(SWIFT) build
	$(SWIFT) test
	$(MAKE) fuzz FUZZ_FLAGS=-runs=50000

build:
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# libFuzzer on the seed loader and the name rules (Fuzz/, a package of its own). Each target
# starts from the small corpus in Fuzz/Corpus; what it learns and any crash stay in FUZZ_BUILD.
# (lld: gold fails on the libFuzzer link.)
FUZZ_BUILD ?= $(CURDIR)/.build-fuzz
FUZZ_FLAGS ?= -max_total_time=20
fuzz: deps
	cd Fuzz && $(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld
	@for target in seed names; do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$target && \
	  SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/fuzz-$$target $(FUZZ_FLAGS) -max_len=4096 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/crash-$$target- $(FUZZ_BUILD)/corpus/$$target Fuzz/Corpus/$$target \
	    || exit 1; \
	done

deps:
	@missing=""; \
	for dep in $(DEPS); do \
	  package=$${dep%%:*}; file=$${dep#*:}; \
	  [ -e "$$file" ] || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

clean:
	rm -rf .build
