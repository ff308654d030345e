/* tui_curses.c — everything that touches the terminal: curses set-up, the colour schemes
 * (256, 8, monochrome), xterm mouse reporting, signals, and the input loop. The screen is drawn
 * in memory first (tui_draw.c) and copied here. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE 1 /* ppoll */
#include "tui.h"
#include "tui_app.h"
#include "tui_internal.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <term.h> /* last: its macros (lines, columns, ...) clash with ordinary names */

/* A lone ESC is the Escape key once the terminal has been quiet this long: the bytes of an
 * escape sequence arrive together. */
#define ESC_WAIT_MS 40

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_winch;
static volatile sig_atomic_t got_tstp, got_cont; /* ^Z, and a continue after a stop */
static bool curses_on, mouse_on;
static bool terminal_gone; /* SIGHUP, or the tty read nothing: tui_run leaves with _exit */

/* For a fatal signal, which cannot call curses: the bytes that undo what the TUI did to the
 * terminal (mouse reporting off, attributes reset, cursor shown, alternate screen left), built
 * from terminfo before the screen changes, and the terminal modes from before curses. */
#define RESET_SEQ_MAX 256
static char reset_seq[RESET_SEQ_MAX];
static size_t reset_len;
static struct termios saved_tty;
static bool tty_saved;
static volatile sig_atomic_t terminal_dirty; /* set while the TUI owns the terminal */
static const int fatal_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGQUIT};

/* Appends the terminfo capability CAP to the reset bytes, without its padding ("$<5>"), which
 * only tputs understands. */
static void reset_append(const char *cap)
{
    const char *s = tigetstr(cap);
    if (!s || s == (char *)-1)
        return;
    for (; *s && reset_len + 1 < RESET_SEQ_MAX; s++) {
        if (s[0] == '$' && s[1] == '<') {
            const char *end = strchr(s, '>');
            if (end) {
                s = end;
                continue;
            }
        }
        reset_seq[reset_len++] = *s;
    }
}

static void build_reset_sequence(void)
{
    static const char mouse_off[] = "\033[?1006l\033[?1002l\033[?1000l";
    reset_len = 0;
    memcpy(reset_seq, mouse_off, sizeof mouse_off - 1);
    reset_len = sizeof mouse_off - 1;
    reset_append("sgr0");
    reset_append("cnorm");
    reset_append("rmcup");
}

/* SIGSEGV and the like: async-signal-safe calls only (write, tcsetattr, sigaction, raise), then
 * the signal again with its default action, so the exit status and a core dump are the
 * signal's. */
static void on_fatal(int sig)
{
    if (terminal_dirty) {
        terminal_dirty = 0;
        ssize_t rc = write(STDOUT_FILENO, reset_seq, reset_len);
        (void)rc;
        if (tty_saved)
            tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig); /* delivered on return (or at once: SA_NODEFER) */
}

static void mouse_reporting_off(void)
{
    if (mouse_on) {
        static const char off[] = "\033[?1006l\033[?1002l\033[?1000l";
        fflush(stdout);
        ssize_t rc = write(STDOUT_FILENO, off, sizeof off - 1);
        (void)rc;
        mouse_on = false;
    }
}

/* Every exit path comes through here (q, signals, atexit). */
static void restore_terminal(void)
{
    terminal_dirty = 0; /* from here on curses restores it; a crash later must not write again */
    mouse_reporting_off();
    if (curses_on) {
        curs_set(1);
        endwin();
        curses_on = false;
    }
}

static void on_signal(int sig)
{
    got_signal = sig;
}
static void on_winch(int sig)
{
    (void)sig;
    got_winch = 1;
}
static void on_tstp(int sig)
{
    (void)sig;
    got_tstp = 1;
}
static void on_cont(int sig)
{
    (void)sig;
    got_cont = 1;
}

/* ^Z: the terminal as the shell expects it (mouse reporting off: clicks typed "0;10;10M" at its
 * prompt until fg), then stopped by SIGTSTP's own default action; once continued, the curses
 * modes are back and the next frame turns the mouse on again. Called from the loop, where
 * SIGTSTP is blocked: ncurses' own handler (which knows nothing of the mouse) is replaced. */
static void suspend(void)
{
    mouse_reporting_off();
    terminal_dirty = 0;
    def_prog_mode();
    endwin();
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    raise(SIGTSTP);                        /* pending while blocked */
    sigprocmask(SIG_UNBLOCK, &tstp, NULL); /* stops here until SIGCONT */
    sigprocmask(SIG_BLOCK, &tstp, NULL);
    sigaction(SIGTSTP, &ours, NULL);
    terminal_dirty = 1;
    reset_prog_mode();
    clearok(curscr, TRUE);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll() wakes up with EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    sa.sa_handler = on_tstp;
    sigaction(SIGTSTP, &sa, NULL);
    sa.sa_handler = on_cont;
    sigaction(SIGCONT, &sa, NULL);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_NODEFER | SA_RESETHAND; /* a fault inside the handler ends the process */
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaction(fatal_signals[i], &sa, NULL);
}

/* ---- colour schemes: style -> (pair, attributes) ---- */

typedef struct {
    short fg;
    attr_t attr;
} style_look;

static attr_t style_attr[TUI_ST_COUNT];
static bool colours_started;
static short style_pair[TUI_ST_COUNT];

/* THEME: the dark palettes (light text on a dark background) or the light ones (darker
 * foregrounds that read on white); monochrome is the same for both. */
static void setup_colours(tui_theme theme)
{
    static const style_look c256[TUI_ST_COUNT] = {
        [TUI_ST_NORMAL] = {-1, 0},       [TUI_ST_DIM] = {245, 0},          [TUI_ST_TITLE] = {75, A_BOLD},
        [TUI_ST_BORDER] = {240, 0},      [TUI_ST_FOCUS] = {226, A_BOLD},   [TUI_ST_TRACK] = {39, 0},
        [TUI_ST_THUMB] = {231, A_BOLD},  [TUI_ST_WARN] = {214, A_BOLD},    [TUI_ST_ERROR] = {196, A_BOLD},
        [TUI_ST_HILITE] = {220, A_BOLD}, [TUI_ST_TOTAL] = {231, A_BOLD},   [TUI_ST_PRED] = {39, 0},
        [TUI_ST_PRED_B] = {213, 0},      [TUI_ST_OBSERVED] = {46, A_BOLD}, [TUI_ST_HEUR] = {244, 0},
        [TUI_ST_WALL] = {196, 0},        [TUI_ST_BAR_WEIGHTS] = {67, 0},   [TUI_ST_BAR_KV] = {108, 0},
        [TUI_ST_BAR_GRAPH] = {208, 0},   [TUI_ST_BAR_FREE] = {240, 0},     [TUI_ST_SELECT] = {-1, A_REVERSE},
    };
    static const style_look c8[TUI_ST_COUNT] = {
        [TUI_ST_NORMAL] = {-1, 0},
        [TUI_ST_DIM] = {-1, A_DIM},
        [TUI_ST_TITLE] = {COLOR_CYAN, A_BOLD},
        [TUI_ST_BORDER] = {COLOR_BLUE, 0},
        [TUI_ST_FOCUS] = {COLOR_YELLOW, A_BOLD},
        [TUI_ST_TRACK] = {COLOR_CYAN, 0},
        [TUI_ST_THUMB] = {COLOR_WHITE, A_BOLD},
        [TUI_ST_WARN] = {COLOR_YELLOW, A_BOLD},
        [TUI_ST_ERROR] = {COLOR_RED, A_BOLD},
        [TUI_ST_HILITE] = {COLOR_YELLOW, A_BOLD},
        [TUI_ST_TOTAL] = {COLOR_WHITE, A_BOLD},
        [TUI_ST_PRED] = {COLOR_CYAN, 0},
        [TUI_ST_PRED_B] = {COLOR_MAGENTA, 0},
        [TUI_ST_OBSERVED] = {COLOR_GREEN, A_BOLD},
        [TUI_ST_HEUR] = {-1, A_DIM},
        [TUI_ST_WALL] = {COLOR_RED, 0},
        [TUI_ST_BAR_WEIGHTS] = {COLOR_BLUE, 0},
        [TUI_ST_BAR_KV] = {COLOR_GREEN, 0},
        [TUI_ST_BAR_GRAPH] = {COLOR_YELLOW, 0},
        [TUI_ST_BAR_FREE] = {-1, A_DIM},
        [TUI_ST_SELECT] = {-1, A_REVERSE},
    };
    static const style_look c256_light[TUI_ST_COUNT] = {
        [TUI_ST_NORMAL] = {-1, 0},       [TUI_ST_DIM] = {242, 0},          [TUI_ST_TITLE] = {25, A_BOLD},
        [TUI_ST_BORDER] = {246, 0},      [TUI_ST_FOCUS] = {130, A_BOLD},   [TUI_ST_TRACK] = {31, 0},
        [TUI_ST_THUMB] = {16, A_BOLD},   [TUI_ST_WARN] = {166, A_BOLD},    [TUI_ST_ERROR] = {160, A_BOLD},
        [TUI_ST_HILITE] = {94, A_BOLD},  [TUI_ST_TOTAL] = {16, A_BOLD},    [TUI_ST_PRED] = {25, 0},
        [TUI_ST_PRED_B] = {127, 0},      [TUI_ST_OBSERVED] = {28, A_BOLD}, [TUI_ST_HEUR] = {244, 0},
        [TUI_ST_WALL] = {160, 0},        [TUI_ST_BAR_WEIGHTS] = {60, 0},   [TUI_ST_BAR_KV] = {65, 0},
        [TUI_ST_BAR_GRAPH] = {166, 0},   [TUI_ST_BAR_FREE] = {250, 0},     [TUI_ST_SELECT] = {-1, A_REVERSE},
    };
    /* Eight colours on white: yellow and white vanish, so blue, magenta, red and black carry them. */
    static const style_look c8_light[TUI_ST_COUNT] = {
        [TUI_ST_NORMAL] = {-1, 0},
        [TUI_ST_DIM] = {-1, A_DIM},
        [TUI_ST_TITLE] = {COLOR_BLUE, A_BOLD},
        [TUI_ST_BORDER] = {COLOR_BLUE, 0},
        [TUI_ST_FOCUS] = {COLOR_MAGENTA, A_BOLD},
        [TUI_ST_TRACK] = {COLOR_BLUE, 0},
        [TUI_ST_THUMB] = {COLOR_BLACK, A_BOLD},
        [TUI_ST_WARN] = {COLOR_RED, 0},
        [TUI_ST_ERROR] = {COLOR_RED, A_BOLD},
        [TUI_ST_HILITE] = {COLOR_MAGENTA, A_BOLD},
        [TUI_ST_TOTAL] = {COLOR_BLACK, A_BOLD},
        [TUI_ST_PRED] = {COLOR_BLUE, 0},
        [TUI_ST_PRED_B] = {COLOR_MAGENTA, 0},
        [TUI_ST_OBSERVED] = {COLOR_GREEN, A_BOLD},
        [TUI_ST_HEUR] = {-1, A_DIM},
        [TUI_ST_WALL] = {COLOR_RED, 0},
        [TUI_ST_BAR_WEIGHTS] = {COLOR_BLUE, 0},
        [TUI_ST_BAR_KV] = {COLOR_GREEN, 0},
        [TUI_ST_BAR_GRAPH] = {COLOR_RED, 0},
        [TUI_ST_BAR_FREE] = {-1, A_DIM},
        [TUI_ST_SELECT] = {-1, A_REVERSE},
    };
    /* Monochrome: attributes only; the plot's series differ by glyph already. */
    static const attr_t mono[TUI_ST_COUNT] = {
        [TUI_ST_DIM] = A_DIM,
        [TUI_ST_TITLE] = A_BOLD,
        [TUI_ST_FOCUS] = A_REVERSE | A_BOLD,
        [TUI_ST_THUMB] = A_BOLD,
        [TUI_ST_WARN] = A_BOLD | A_UNDERLINE,
        [TUI_ST_ERROR] = A_BOLD | A_REVERSE,
        [TUI_ST_HILITE] = A_BOLD | A_UNDERLINE,
        [TUI_ST_TOTAL] = A_BOLD,
        [TUI_ST_OBSERVED] = A_BOLD,
        [TUI_ST_WALL] = A_BOLD,
        [TUI_ST_SELECT] = A_REVERSE,
    };
    const char *no_color = getenv("NO_COLOR");
    bool colour = has_colors() && !(no_color && *no_color);
    if (colour && (colours_started || start_color() == OK)) {
        colours_started = true;
        use_default_colors();
        bool light = theme == TUI_THEME_LIGHT;
        const style_look *scheme = COLORS >= 256 ? (light ? c256_light : c256) : (light ? c8_light : c8);
        for (int i = 0; i < TUI_ST_COUNT; i++) {
            style_attr[i] = scheme[i].attr;
            style_pair[i] = 0;
            if (scheme[i].fg >= 0 && COLOR_PAIRS > i + 1) {
                init_pair((short)(i + 1), scheme[i].fg, -1);
                style_pair[i] = (short)(i + 1);
            }
        }
        return;
    }
    for (int i = 0; i < TUI_ST_COUNT; i++) {
        style_attr[i] = mono[i];
        style_pair[i] = 0;
    }
}

static void blit(const tui_screen *s)
{
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            const tui_cell *c = &s->cells[y * s->w + x];
            wchar_t wc[2] = {c->ch, L'\0'};
            cchar_t cc;
            setcchar(&cc, wc, style_attr[c->style], style_pair[c->style], NULL);
            mvadd_wch(y, x, &cc);
        }
    wnoutrefresh(stdscr);
    doupdate();
}

static bool terminal_has_mouse(void)
{
    const char *kmous = tigetstr("kmous");
    return kmous && kmous != (char *)-1 && *kmous;
}

static void query_size(int *w, int *h)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        *w = ws.ws_col;
        *h = ws.ws_row;
    } else {
        *w = COLS;
        *h = LINES;
    }
}

/* tui_run with its app given. */
static int run(tui_app *app, const tui_options *o)
{
    setlocale(LC_ALL, "");
    bool ascii = o->ascii || !tui_locale_utf8();
    char err[ENGINE_TEXT_MAX * 2];
    int rc = tui_app_init(app, o->preset, o->plan, o->compare, o->db_path, ascii, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "cgplan: %s\n", err);
        tui_app_free(app);
        return rc;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "cgplan: tui: needs a terminal (for text output use cgplan tui --snapshot WxH)\n");
        tui_app_free(app);
        return 1;
    }
    tty_saved = tcgetattr(STDIN_FILENO, &saved_tty) == 0; /* before curses changes the modes */
    if (!newterm(NULL, stdout, stdin)) {
        fprintf(stderr, "cgplan: tui: cannot initialise the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        tui_app_free(app);
        return 1;
    }
    /* A terminal that cannot address the cursor (TERM=dumb, emacs' shell) would get a heap of
     * characters: say so instead of drawing. */
    const char *cup = tigetstr("cup");
    if (cup == NULL || cup == (char *)-1) {
        endwin();
        fprintf(stderr, "cgplan: tui: TERM=%s cannot move the cursor; set TERM=xterm-256color or vt100, "
                        "or use cgplan tui --snapshot WxH\n",
                getenv("TERM") ? getenv("TERM") : "");
        tui_app_free(app);
        return 1;
    }
    curses_on = true;
    atexit(restore_terminal);
    build_reset_sequence();
    terminal_dirty = 1;
    install_handlers();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, FALSE); /* we decode escape sequences ourselves (tui_input.c) */
    curs_set(0);
    tui_theme theme = app->theme;
    setup_colours(theme);
    bool want_mouse = terminal_has_mouse();

    tui_screen s = {0};
    int w, h;
    query_size(&w, &h);
    if (tui_screen_init(&s, w, h) != 0) {
        restore_terminal();
        fprintf(stderr, "cgplan: tui: out of memory\n");
        tui_app_free(app);
        return 1;
    }
    tui_decoder dec;
    tui_decoder_init(&dec);
    int flags = TUI_REDRAW;
    int status = 0;
    /* The loop's signals reach their handlers only inside ppoll: one that came while a frame was
     * computed or drawn, before a plain poll(), was noticed only at the next key (a SIGTERM during
     * the first frame left the planner running). */
    sigset_t loop_signals, outside; /* OUTSIDE: the mask before, the one ppoll waits with */
    sigemptyset(&loop_signals);
    sigaddset(&loop_signals, SIGINT);
    sigaddset(&loop_signals, SIGTERM);
    sigaddset(&loop_signals, SIGHUP);
    sigaddset(&loop_signals, SIGWINCH);
    sigaddset(&loop_signals, SIGTSTP);
    sigaddset(&loop_signals, SIGCONT);
    sigprocmask(SIG_BLOCK, &loop_signals, &outside);
    for (;;) {
        if (flags & TUI_RELOAD_RUNS)
            tui_app_reload_runs(app);
        if (flags & TUI_RECOMPUTE)
            tui_app_recompute(app);
        if (flags & TUI_QUIT)
            break;
        if (flags & TUI_RESIZE) {
            query_size(&w, &h);
            resizeterm(h, w);
            tui_screen_free(&s);
            if (tui_screen_init(&s, w, h) != 0)
                break;
            clearok(curscr, TRUE);
        }
        if (app->theme != theme) { /* t: the pairs change, and every cell is drawn again */
            theme = app->theme;
            setup_colours(theme);
            clearok(curscr, TRUE);
        }
        if (flags & (TUI_REDRAW | TUI_RESIZE | TUI_RECOMPUTE)) {
            tui_app_render(app, &s);
            blit(&s);
            if (want_mouse && !mouse_on) {
                static const char on[] = "\033[?1002h\033[?1006h";
                fflush(stdout);
                ssize_t wr = write(STDOUT_FILENO, on, sizeof on - 1);
                (void)wr;
                mouse_on = true;
            }
        }
        flags = 0;
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        const struct timespec esc_wait = {0, ESC_WAIT_MS * 1000000L};
        int pr = ppoll(&pfd, 1, tui_decoder_pending(&dec) ? &esc_wait : NULL, &outside);
        if (got_signal) {
            status = 128 + got_signal;
            terminal_gone = got_signal == SIGHUP;
            break;
        }
        if (got_winch) {
            got_winch = 0;
            flags |= TUI_RESIZE | TUI_REDRAW;
        }
        if (got_tstp) {
            got_tstp = 0;
            suspend();
            flags |= TUI_RESIZE | TUI_REDRAW; /* the terminal may have changed while stopped */
            continue;
        }
        if (got_cont) { /* continued (after our stop, or a SIGSTOP): the mouse on again, all redrawn */
            got_cont = 0;
            mouse_on = false; /* the next frame sends it again: the shell may have reset the terminal */
            clearok(curscr, TRUE);
            flags |= TUI_REDRAW;
            continue;
        }
        tui_event ev;
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            status = 1;
            break;
        }
        if (pr == 0) {
            if (tui_decoder_flush(&dec, &ev))
                flags |= tui_app_handle(app, &ev);
            continue;
        }
        if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL) && !(pfd.revents & POLLIN)) {
            status = 1;
            terminal_gone = true;
            break;
        }
        unsigned char buf[4096];
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            status = 1; /* the terminal went away */
            terminal_gone = true;
            break;
        }
        /* One batch: every event first, then one recompute and one redraw. */
        for (ssize_t i = 0; i < n && !(flags & TUI_QUIT); i++) {
            tui_event evs[TUI_DECODER_MAX_EVENTS];
            int got = tui_decoder_feed(&dec, buf[i], evs);
            for (int k = 0; k < got && !(flags & TUI_QUIT); k++) {
                flags |= tui_app_handle(app, &evs[k]);
                if (flags & TUI_RELOAD_RUNS) {
                    tui_app_reload_runs(app);
                    flags &= ~TUI_RELOAD_RUNS;
                }
            }
        }
    }
    restore_terminal();
    sigprocmask(SIG_SETMASK, &outside, NULL); /* one that came since is handled now: got_signal */
    tui_screen_free(&s);
    tui_app_free(app);
    return status;
}

int tui_run(const tui_options *o)
{
    /* The main loop's app belongs to this call: on the heap (about 170 KiB), not in a static
     * that would outlive it. The signal handlers and atexit need only the flags above. */
    tui_app *app = malloc(sizeof *app);
    if (!app) {
        fprintf(stderr, "cgplan: tui: out of memory\n");
        return 1;
    }
    int status = run(app, o);
    free(app);
    /* A hung-up terminal: the store is closed and nothing left at exit can reach the tty, so
     * leave now. Exit-time work would also race the kernel's SIGCONT to the hung-up process
     * group: a sanitizer build's leak scan ptrace-stops the process, the SIGCONT discards that
     * stop, and the process spun at 100% CPU after its tmux session was killed. */
    if (terminal_gone)
        _exit(status);
    return status;
}
