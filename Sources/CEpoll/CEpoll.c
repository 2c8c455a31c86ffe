#include "CEpoll.h"
#include <sys/epoll.h>

int cepoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cepoll_watch(int epoll, int descriptor, uint64_t number, int writable, int modify) {
    struct epoll_event event = { .events = writable ? EPOLLOUT : EPOLLIN, .data = { .u64 = number } };
    return epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, descriptor, &event);
}

int cepoll_wait(int epoll, uint64_t *numbers, int capacity, int timeout) {
    struct epoll_event events[1024];
    int ready = epoll_wait(epoll, events, capacity < 1024 ? capacity : 1024, timeout);
    for (int i = 0; i < ready; i++) numbers[i] = events[i].data.u64;
    return ready;
}
