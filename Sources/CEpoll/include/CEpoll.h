#ifndef CEPOLL_H
#define CEPOLL_H

#include <stdint.h>

// epoll for Swift, which Glibc's module does not include (and whose packed epoll_event it
// cannot lay out): each descriptor is registered with a number of the caller's, which a wait
// gives back for each one ready.

/// A new epoll instance (close-on-exec), or -1 with errno.
int cepoll_create(void);

/// Watches `descriptor` for being writable (`writable` not 0: a connection made) or readable,
/// reporting `number`; `modify` changes a descriptor already watched. 0, or -1 with errno.
int cepoll_watch(int epoll, int descriptor, uint64_t number, int writable, int modify);

/// Waits up to `timeout` ms; writes the numbers of the ready descriptors (at most `capacity`,
/// at most 1024) to `numbers`; returns how many, or -1 with errno.
int cepoll_wait(int epoll, uint64_t *numbers, int capacity, int timeout);

#endif
