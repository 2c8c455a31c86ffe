# The two commands of the README: `make run` and `make test`. Both install what a fresh
# Debian machine lacks (through apt-get, with sudo only when not root), then build.

SWIFT ?= swift
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the build and the tests need, with a file that proves each is there.
DEPS := libncursesw5-dev:/usr/include/ncursesw/curses.h \
        libsqlite3-dev:/usr/include/sqlite3.h \
        pkg-config:/usr/bin/pkg-config \
        tmux:/usr/bin/tmux \
        postgresql:/usr/lib/postgresql/15/bin/initdb \
        openssl:/usr/bin/openssl \
        pgbouncer:/usr/sbin/pgbouncer \
        sqlite3:/usr/bin/sqlite3 \
        chromium:/usr/bin/chromium \
        chromium-driver:/usr/bin/chromedriver

# Where `make install` puts things: $(DESTDIR)$(PREFIX)/bin/worldcup, its man page and its
# shell completions. DESTDIR is for packagers (a staging folder); PREFIX is where it will live.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
MAN1DIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
INSTALLED := $(BINDIR)/worldcup $(MAN1DIR)/worldcup.1 $(BASHDIR)/worldcup $(ZSHDIR)/_worldcup $(FISHDIR)/worldcup.fish

.PHONY: run test build release deps bench clean fuzz install uninstall docs example article merged

run: deps build
	.build/debug/worldcup $(ARGS)

# The tests (with the examples built: tests run them), then a short libFuzzer run of each
# fuzz target (about a minute with its build).
test: merged deps example article
	$(SWIFT) build
	$(SWIFT) test
	$(MAKE) fuzz FUZZ_FLAGS=-runs=50000

build:
	$(SWIFT) build

# No merge left half done: a conflict marker in a tracked file fails the tests.
merged:
	@! git grep -n -E '^(<<<<<<<|>>>>>>>)( |$$)' -- . 2>/dev/null || { echo "A merge left conflict markers in the lines above: resolve them." >&2; exit 1; }

# Examples/WatchTable, Examples/LiveBoardServer and Examples/PostgresOnly, packages of their own
# that depend on this one by path (each builds GRDB again, LiveBoardServer Hummingbird, and
# PostgresOnly postgres-nio without GRDB, in its own .build; its product only: a plain build
# would build every target of this package too, GRDB among them).
example: deps
	$(SWIFT) build --package-path Examples/WatchTable
	$(SWIFT) build --package-path Examples/LiveBoardServer
	$(SWIFT) build --package-path Examples/PostgresOnly --product postgres-only

# The Getting Started article's package, manifest and program as the article gives them.
article: deps
	Tools/build-getting-started

release: deps
	$(SWIFT) build -c release

# A release worldcup that needs nothing from the checkout (seed.json is built into it) nor from
# the Swift toolchain (its runtime and Foundation are linked in statically), its man page
# (swift-argument-parser's generate-manual plugin, which builds the release products) and its
# bash, zsh and fish completions (which the binary prints).
MANUAL := .build/plugins/GenerateManual/outputs/worldcup/worldcup.1
install: deps
	rm -f $(MANUAL)
	$(SWIFT) package generate-manual --configuration release
	$(SWIFT) build -c release --product worldcup --static-swift-stdlib
	@bin="$$($(SWIFT) build -c release --show-bin-path)" && set -ex && \
	install -d "$(BINDIR)" "$(MAN1DIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)" && \
	install -m 755 "$$bin/worldcup" "$(BINDIR)/worldcup" && \
	install -m 644 $(MANUAL) "$(MAN1DIR)/worldcup.1" && \
	"$$bin/worldcup" --generate-completion-script bash > "$(BASHDIR)/worldcup" && \
	"$$bin/worldcup" --generate-completion-script zsh > "$(ZSHDIR)/_worldcup" && \
	"$$bin/worldcup" --generate-completion-script fish > "$(FISHDIR)/worldcup.fish"

uninstall:
	rm -f $(INSTALLED)

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

# The DocC documentation of LiveResults, LiveResultsSQLite and LiveResultsPostgres
# (swift-docc-plugin), as static sites in .build/docs/<target>; a warning fails it.
DOCS := .build/docs
docs:
	@mkdir -p $(DOCS) && for target in LiveResults LiveResultsSQLite LiveResultsPostgres; do \
	  $(SWIFT) package --allow-writing-to-directory $(DOCS) generate-documentation --target $$target \
	    --output-path $(DOCS)/$$target --transform-for-static-hosting --warnings-as-errors || exit 1; \
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
