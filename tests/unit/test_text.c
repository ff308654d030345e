/* test_text.c — untrusted text kept as data (issue 21): the strict UTF-8 decoder, the sanitiser
 * and shell quoting (engine/text.c), the quoting checked against a real sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text.h"

/* ---- the decoder ---- */

static void test_utf8_accepts_shortest_forms(void **state)
{
    (void)state;
    const struct {
        const char *bytes;
        uint32_t cp;
    } ok[] = {
        {"q", 'q'},
        {"\xc2\x80", 0x80},             /* the first two-byte character */
        {"\xdf\xbf", 0x7ff},            /* the last */
        {"\xe0\xa0\x80", 0x800},        /* the first three-byte one */
        {"\xed\x9f\xbf", 0xd7ff},       /* just below the surrogates */
        {"\xee\x80\x80", 0xe000},       /* just above them */
        {"\xef\xbf\xbd", 0xfffd},       /* U+FFFD itself */
        {"\xf0\x90\x80\x80", 0x10000},  /* the first four-byte one */
        {"\xf4\x8f\xbf\xbf", 0x10ffff}, /* the last code point */
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint32_t cp = 0;
        size_t len = strlen(ok[i].bytes);
        assert_int_equal(engine_utf8_decode(ok[i].bytes, len, &cp), len);
        assert_int_equal(cp, ok[i].cp);
    }
}

/* Each form RFC 3629 rules out, with the length of the prefix that one U+FFFD replaces. */
static void test_utf8_rejects_each_form(void **state)
{
    (void)state;
    const struct {
        const char *bytes, *what;
        size_t bad_len;
    } bad[] = {
        {"\xc1\xb1", "overlong 'q' (C1 B1)", 1},
        {"\xc0\x83", "overlong Ctrl-C (C0 83)", 1},
        {"\xc0\x80", "overlong NUL", 1},
        {"\xe0\x80\x80", "overlong three-byte (E0 80)", 1},
        {"\xe0\x9f\xbf", "overlong three-byte (E0 9F)", 1},
        {"\xf0\x80\x80\x80", "overlong four-byte (F0 80)", 1},
        {"\xf0\x8f\xbf\xbf", "overlong four-byte (F0 8F)", 1},
        {"\xed\xa0\x80", "a high surrogate (ED A0)", 1},
        {"\xed\xbf\xbf", "a low surrogate (ED BF)", 1},
        {"\xf4\x90\x80\x80", "past U+10FFFF (F4 90)", 1},
        {"\xf5\x80\x80\x80", "an F5 lead", 1},
        {"\xff", "FF", 1},
        {"\x80", "a lone continuation byte", 1},
        {"\xe4\xb8", "a truncated three-byte character", 2},
        {"\xf0\x9f\x98", "a truncated four-byte character", 3},
        {"\xe4q", "a lead followed by ASCII", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t cp = 0;
        size_t n = engine_utf8_decode(bad[i].bytes, strlen(bad[i].bytes), &cp);
        if (cp != ENGINE_UTF8_INVALID || n != bad[i].bad_len)
            fail_msg("%s: decoded to U+%04X in %zu bytes", bad[i].what, (unsigned)cp, n);
    }
}

/* ---- the sanitiser ---- */

static void expect_clean_n(const char *in, size_t in_len, const char *want)
{
    char out[256];
    size_t n = engine_text_clean(out, sizeof out, in, in_len);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void expect_clean(const char *in, const char *want)
{
    expect_clean_n(in, strlen(in), want);
}

static void test_clean_controls_and_invalid(void **state)
{
    (void)state;
    /* the issue's file name: it set the window title and turned the text red */
    const char *title = "\x1b]0;TITLE\x07\x1b[31m red.log";
    expect_clean(title, "\\x1b]0;TITLE\\x07\\x1b[31m red.log");
    expect_clean("a\xc2\x9b"
                 "31mb\xc2\x9d"
                 "0;x",
                 "a\\x9b31mb\\x9d0;x"); /* C1 CSI and OSC in UTF-8 */
    expect_clean("del\x7f", "del\\x7f");
    expect_clean("two\nlines\tand\rcr", "two\\nlines\\tand\\rcr");
    expect_clean("caf\xc3\xa9 \xe2\x86\x92 ok", "caf\xc3\xa9 \xe2\x86\x92 ok"); /* valid text stays */
    /* invalid forms as Python's errors="replace": one U+FFFD per maximal prefix */
    expect_clean("m\xe0\x80\x80", "m\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expect_clean("\xed\xa0\x80x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx");
    expect_clean("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expect_clean("end\xe4\xb8", "end\xef\xbf\xbd");
    expect_clean("\xc1\xb1", "\xef\xbf\xbd\xef\xbf\xbd");
    expect_clean_n("stop\0here", 9, "stop"); /* a NUL ends the text */
    /* the eight-byte fast path hands a block with a control to the careful loop */
    expect_clean("0123456789abc\x1b[2Jrest-of-it", "0123456789abc\\x1b[2Jrest-of-it");
}

static void test_clean_never_cuts(void **state)
{
    (void)state;
    char out[6];
    assert_int_equal(engine_text_clean(out, sizeof out, "ab\x1b", 3), 2); /* "ab\x1b" needs 7 bytes */
    assert_string_equal(out, "ab");
    assert_int_equal(engine_text_clean(out, sizeof out, "abc\xe2\x86\x92", 6), 3); /* the arrow is 3 bytes */
    assert_string_equal(out, "abc");
    assert_int_equal(engine_text_clean(out, sizeof out, "abcd\xff", 5), 4);
    assert_string_equal(out, "abcd");
    assert_int_equal(engine_text_clean(out, 1, "abc", 3), 0);
    assert_string_equal(out, "");
}

/* ---- shell quoting ---- */

static void test_quote_is_shlex_quote(void **state)
{
    (void)state;
    /* the outputs of Python's shlex.quote for the same inputs */
    const struct {
        const char *in, *out;
    } cases[] = {
        {"zai-org/GLM-4.5-Air", "zai-org/GLM-4.5-Air"},
        {"a@b%c+d=e:f,g./h_i-j", "a@b%c+d=e:f,g./h_i-j"},
        {"", "''"},
        {"my model", "'my model'"},
        {"it's", "'it'\"'\"'s'"},
        {"org/$(touch PWNED-subshell)", "'org/$(touch PWNED-subshell)'"},
        {"org/m; touch PWNED-semicolon #", "'org/m; touch PWNED-semicolon #'"},
        {"org/m\necho PWNED-newline >&2 #", "'org/m\necho PWNED-newline >&2 #'"},
        {"~user", "'~user'"},
        {"caf\xc3\xa9", "'caf\xc3\xa9'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[128];
        size_t need = engine_shell_quote(out, sizeof out, cases[i].in);
        assert_string_equal(out, cases[i].out);
        assert_int_equal(need, strlen(cases[i].out));
    }
    assert_null(engine_shell_unsafe("zai-org/GLM-4.5-Air"));
    assert_string_equal(engine_shell_unsafe("org/$(x)"), "$(x)");
}

static void test_quote_never_cut(void **state)
{
    (void)state;
    char out[8] = "junk";
    assert_int_equal(engine_shell_quote(out, sizeof out, "a b c d e"), 11);
    assert_string_equal(out, ""); /* not "'a b c " with its quote left open */
    assert_int_equal(engine_shell_quote(out, sizeof out, "abc"), 3);
    assert_string_equal(out, "abc");
}

static void test_char_name(void **state)
{
    (void)state;
    char buf[64];
    engine_char_name("$(x)", buf, sizeof buf);
    assert_string_equal(buf, "'$'");
    engine_char_name("\necho", buf, sizeof buf);
    assert_string_equal(buf, "a newline");
    engine_char_name("\x1b[", buf, sizeof buf);
    assert_string_equal(buf, "a control character (\\x1b)");
    engine_char_name("\xc3\xa9", buf, sizeof buf);
    assert_string_equal(buf, "'\xc3\xa9' (U+00E9)");
    engine_char_name("\xc1\xb1", buf, sizeof buf);
    assert_string_equal(buf, "a byte that is not UTF-8 (\\xc1)");
}

/* Runs SCRIPT (a file) with sh; returns its exit status, its stdout in OUT. */
static int run_sh(const char *script, char *out, size_t len)
{
    char path[] = "/tmp/cgplan-test-text-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(script, f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "sh %s", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    unlink(path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Words of every byte but NUL, quoted, parse with `sh -n` and come back whole through
 * sh -c 'printf "%s\n" "$@"'. */
static void test_quote_round_trip_through_sh(void **state)
{
    (void)state;
    enum { WORDS = 300, WORD_MAX = 24 };
    static char words[WORDS][WORD_MAX + 1];
    const char *fixed[] = {"", "'", "''", "\"", "\\", "$HOME", "`id`", "a\nb", "!", "*", "-n", "%s", " ", "\t"};
    unsigned seed = 21;
    for (int i = 0; i < WORDS; i++) {
        if (i < (int)(sizeof fixed / sizeof fixed[0])) {
            snprintf(words[i], sizeof words[i], "%s", fixed[i]);
            continue;
        }
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % WORD_MAX;
        for (int k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            words[i][k] = (char)(1 + (seed >> 16) % 255); /* 1..255: every byte but NUL */
        }
        words[i][n] = '\0';
    }
    size_t cap = (size_t)WORDS * (WORD_MAX * 5 + 4) + 128, used = 0;
    char *script = malloc(cap), *want = malloc(cap), *got = malloc(cap), *check = malloc(cap + 64);
    assert_non_null(script);
    assert_non_null(want);
    assert_non_null(got);
    assert_non_null(check);
    used = (size_t)snprintf(script, cap, "sh -c 'printf \"%%s\\n\" \"$@\"' sh ");
    size_t want_len = 0;
    for (int i = 0; i < WORDS; i++) {
        used += engine_shell_quote(script + used, cap - used, words[i]);
        script[used++] = ' ';
        want_len += (size_t)snprintf(want + want_len, cap - want_len, "%s\n", words[i]);
    }
    script[used++] = '\n';
    script[used] = '\0';
    /* sh -n: the whole line parses as one command */
    snprintf(check, cap + 64, "sh -n <<'CGPLAN_EOF'\n%sCGPLAN_EOF\n", script);
    assert_int_equal(run_sh(check, got, cap), 0);
    /* and each word comes back as it was, one line each */
    assert_int_equal(run_sh(script, got, cap), 0);
    assert_string_equal(got, want);
    free(script);
    free(want);
    free(got);
    free(check);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_accepts_shortest_forms),
        cmocka_unit_test(test_utf8_rejects_each_form),
        cmocka_unit_test(test_clean_controls_and_invalid),
        cmocka_unit_test(test_clean_never_cuts),
        cmocka_unit_test(test_quote_is_shlex_quote),
        cmocka_unit_test(test_quote_never_cut),
        cmocka_unit_test(test_char_name),
        cmocka_unit_test(test_quote_round_trip_through_sh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
