#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

// Wide-character curses: declare the cchar_t functions before the header is read.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <poll.h>

// Macros and globals Swift cannot import, as functions.
static inline attr_t cn_attr_bold(void) { return A_BOLD; }
static inline attr_t cn_attr_reverse(void) { return A_REVERSE; }
static inline attr_t cn_attr_dim(void) { return A_DIM; }
static inline attr_t cn_attr_underline(void) { return A_UNDERLINE; }
static inline attr_t cn_attr_normal(void) { return A_NORMAL; }
static inline WINDOW *cn_stdscr(void) { return stdscr; }
/// Starts curses on standard input and output; NULL when the terminal type is unknown.
static inline SCREEN *cn_newterm(void) { return newterm(NULL, stdout, stdin); }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_key_f(int n) { return KEY_F(n); }
static inline int cn_ok(void) { return OK; }
static inline int cn_err(void) { return ERR; }

/// Writes one grapheme (a base character and up to four combining ones) at a place.
static inline int cn_put_cell(int y, int x, const wchar_t *text, attr_t attributes, short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) != OK) return ERR;
    return mvadd_wch(y, x, &cell);
}

/// Reads one key or character; returns OK (a character), KEY_CODE_YES (a key code) or ERR.
static inline int cn_get_wch(int *value) {
    wint_t wide = 0;
    int result = get_wch(&wide);
    *value = (int)wide;
    return result;
}

// Signals: the handler only writes the signal number to a pipe; the event loop reads it.
static int cn_signal_fd = -1;
static inline void cn_signal_handler(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    if (cn_signal_fd >= 0) { ssize_t ignored = write(cn_signal_fd, &byte, 1); (void)ignored; }
    errno = saved;
}
static inline void cn_install_signal_pipe(int fd) {
    cn_signal_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cn_signal_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}
static inline void cn_restore_default_signals(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    cn_signal_fd = -1;
}

#endif
