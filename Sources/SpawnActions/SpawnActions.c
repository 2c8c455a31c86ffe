#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include "SpawnActions.h"

int spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int spawn_attributes_unblock_signals(posix_spawnattr_t *attributes, short flags) {
    sigset_t none;
    sigemptyset(&none);
    int error = posix_spawnattr_setsigmask(attributes, &none);
    if (error != 0) return error;
    return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSIGMASK);
}
