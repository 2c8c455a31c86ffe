#ifndef SPAWN_ACTIONS_H
#define SPAWN_ACTIONS_H

#include <spawn.h>

/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up: glibc's
/// posix_spawn_file_actions_addclosefrom_np, which its header declares only under _GNU_SOURCE
/// (so Swift's Glibc module does not see it). Returns 0 or an errno value.
int spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Makes `attributes` (initialized) start the child with no signal blocked, and sets `flags`
/// (other POSIX_SPAWN_* flags, or 0) with POSIX_SPAWN_SETSIGMASK. A child inherits the spawning
/// thread's signal mask, in which the Swift runtime's threads may block SIGTERM and SIGINT: a
/// daemon started so would never hear the signal that stops it. Returns 0 or an errno value.
int spawn_attributes_unblock_signals(posix_spawnattr_t *attributes, short flags);

#endif
