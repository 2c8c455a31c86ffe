#ifndef SPAWN_ACTIONS_H
#define SPAWN_ACTIONS_H

#include <spawn.h>

/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up: glibc's
/// posix_spawn_file_actions_addclosefrom_np, which its header declares only under _GNU_SOURCE
/// (so Swift's Glibc module does not see it). Returns 0 or an errno value.
int spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
