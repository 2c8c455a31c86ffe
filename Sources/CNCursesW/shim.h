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
#include <termios.h>

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

/// Reads one byte of input or one key code (above 255, with keypad on), or ERR.
static inline int cn_getch(void) { return wgetch(stdscr); }

// Mouse: the masks are macros.
static inline mmask_t cn_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t cn_button1_double_clicked(void) { return BUTTON1_DOUBLE_CLICKED; }
static inline mmask_t cn_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cn_button5_pressed(void) { return BUTTON5_PRESSED; }
/// Reads the pending mouse event: OK with its buttons and cell, or ERR.
static inline int cn_get_mouse(mmask_t *buttons, int *x, int *y) {
    MEVENT event;
    memset(&event, 0, sizeof event);
    if (getmouse(&event) != OK) return ERR;
    *buttons = event.bstate;
    *x = event.x;
    *y = event.y;
    return OK;
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

// Crashes: an async-signal-safe handler restores the terminal with write(2) and tcsetattr,
// puts the signal's previous action back (the default, or the Swift runtime's backtracer,
// which then prints to the restored screen) and raises the signal again, ending with the
// default action. Everything it writes is prepared beforehand.
#define CN_CRASH_SIGNAL_COUNT 6
static const int cn_crash_signals[CN_CRASH_SIGNAL_COUNT] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP };
// A stack overflow faults with no stack left to run a handler on, so the handlers run on an
// alternate signal stack: the thread's own when it has one of at least CN_CRASH_STACK_MINIMUM
// (Swift's runtime gives the main thread about 30 KB), else one of ours.
#define CN_CRASH_STACK_SIZE 65536
#define CN_CRASH_STACK_MINIMUM 16384
struct cn_crash_state {
    struct sigaction previous_actions[CN_CRASH_SIGNAL_COUNT];
    char stack[CN_CRASH_STACK_SIZE];
    stack_t previous_stack;
    int installed_stack;
    char restore_bytes[512];
    size_t restore_length;
    struct termios saved_termios;
    int has_saved_termios;
    int installed;
};
/// The crash path's state. (A function's static: Swift's importer emits no file-level arrays.)
static inline struct cn_crash_state *cn_crash(void) {
    static struct cn_crash_state state;
    return &state;
}

static inline void cn_append_restore(const char *bytes) {
    struct cn_crash_state *crash = cn_crash();
    if (bytes == NULL || bytes == (const char *)-1) return;
    size_t length = strlen(bytes);
    if (crash->restore_length + length > sizeof crash->restore_bytes) return;
    memcpy(crash->restore_bytes + crash->restore_length, bytes, length);
    crash->restore_length += length;
}

static inline void cn_crash_handler(int signal_number) {
    struct cn_crash_state *crash = cn_crash();
    int saved = errno;
    if (crash->restore_length > 0) { ssize_t ignored = write(STDOUT_FILENO, crash->restore_bytes, crash->restore_length); (void)ignored; }
    if (crash->has_saved_termios) tcsetattr(STDIN_FILENO, TCSANOW, &crash->saved_termios);
    for (int i = 0; i < CN_CRASH_SIGNAL_COUNT; i++) {
        if (cn_crash_signals[i] == signal_number) sigaction(signal_number, &crash->previous_actions[i], NULL);
    }
    // Deliver it now, to the previous action; if that returns (the backtracer does, expecting
    // the fault to happen again), the default action ends the program.
    sigset_t this_signal;
    sigemptyset(&this_signal);
    sigaddset(&this_signal, signal_number);
    pthread_sigmask(SIG_UNBLOCK, &this_signal, NULL);
    raise(signal_number);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
    errno = saved;
}

/// Remembers the terminal's modes as they are now (call before curses changes them).
static inline void cn_save_terminal_modes(void) {
    struct cn_crash_state *crash = cn_crash();
    crash->has_saved_termios = tcgetattr(STDIN_FILENO, &crash->saved_termios) == 0;
}

/// Prepares what a crash writes (mouse off, attributes off, cursor shown, keypad off, leave the
/// alternate screen) from the current terminal's description, and installs the handler for
/// SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL (Swift's traps) and SIGTRAP, on an alternate
/// signal stack so that a stack overflow restores the terminal too.
static inline void cn_install_crash_handlers(void) {
    struct cn_crash_state *crash = cn_crash();
    crash->restore_length = 0;
    cn_append_restore("\033[?1006l\033[?1003l\033[?1002l\033[?1000l");
    cn_append_restore(tigetstr("sgr0"));
    cn_append_restore(tigetstr("cnorm"));
    cn_append_restore(tigetstr("rmkx"));
    cn_append_restore(tigetstr("rmcup"));
    crash->installed_stack = 0;
    if (sigaltstack(NULL, &crash->previous_stack) == 0
        && ((crash->previous_stack.ss_flags & SS_DISABLE) || crash->previous_stack.ss_size < CN_CRASH_STACK_MINIMUM)) {
        stack_t stack;
        memset(&stack, 0, sizeof stack);
        stack.ss_sp = crash->stack;
        stack.ss_size = sizeof crash->stack;
        crash->installed_stack = sigaltstack(&stack, NULL) == 0;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cn_crash_handler;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < CN_CRASH_SIGNAL_COUNT; i++) {
        sigaction(cn_crash_signals[i], &action, &crash->previous_actions[i]);
    }
    crash->installed = 1;
}

/// Whether the crash handlers run on an alternate signal stack on this thread (the one they
/// installed, or one the thread had).
static inline int cn_crash_handlers_have_stack(void) {
    stack_t current;
    return sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE);
}

/// Puts back the actions the crash signals had before `cn_install_crash_handlers`.
static inline void cn_remove_crash_handlers(void) {
    struct cn_crash_state *crash = cn_crash();
    if (!crash->installed) return;
    for (int i = 0; i < CN_CRASH_SIGNAL_COUNT; i++) {
        sigaction(cn_crash_signals[i], &crash->previous_actions[i], NULL);
    }
    if (crash->installed_stack) {
        // The stack the thread had before (or none) comes back.
        if (crash->previous_stack.ss_flags & SS_DISABLE) {
            stack_t disabled;
            memset(&disabled, 0, sizeof disabled);
            disabled.ss_flags = SS_DISABLE;
            sigaltstack(&disabled, NULL);
        } else {
            sigaltstack(&crash->previous_stack, NULL);
        }
        crash->installed_stack = 0;
    }
    crash->installed = 0;
}

#endif
