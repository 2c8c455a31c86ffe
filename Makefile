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

.PHONY: run test build release deps bench clean

run: deps build
	.build/debug/worldcup $(ARGS)

test: deps
	$(SWIFT) build
	$(SWIFT) test

build:
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

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
