/* text.h — untrusted text kept as data (issue 21): one strict UTF-8 decoder, one sanitiser for
 * text bound for a terminal or a table, and one shell quoting for text printed into a command.
 * Pure: caller-owned buffers, no allocation. */
#ifndef CGPLAN_TEXT_H
#define CGPLAN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENGINE_UTF8_INVALID UINT32_MAX
#define ENGINE_REPLACEMENT_UTF8 "\xef\xbf\xbd" /* U+FFFD */

/* Decodes the character at S (LEN bytes there) into *CP and returns its length. Shortest form
 * only, no surrogates, nothing past U+10FFFF (RFC 3629). An invalid or truncated sequence gives
 * *CP = ENGINE_UTF8_INVALID and the length of its maximal valid prefix (at least 1), so each bad
 * stretch becomes one U+FFFD, as Python's errors="replace" does. LEN 0 returns 0. */
size_t engine_utf8_decode(const char *s, size_t len, uint32_t *cp);

/* C0 controls, DEL and the C1 controls (U+0080..U+009F): what a terminal acts on. */
static inline bool engine_is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/* The visible escape of control CP into OUT, as Python's repr writes it: "\n", "\t", "\r", else
 * "\xNN" (C1 too: U+009B is "\x9b"). Returns its length (2 or 4). */
size_t engine_control_escape(uint32_t cp, char out[5]);

/* LEN bytes of SRC into DST (CAP bytes, NUL-terminated): controls as their visible escapes,
 * invalid UTF-8 as U+FFFD, the rest as it is. Stops at a NUL in SRC. Never cuts an escape or a
 * character at CAP. Returns the bytes written (without the NUL). */
size_t engine_text_clean(char *dst, size_t cap, const char *src, size_t len);
/* The same for a NUL-terminated SRC (NULL: ""); returns DST. */
char *engine_text_cleaned(char *dst, size_t cap, const char *src);

/* The first byte of S that a POSIX shell would read as more than a letter of a word (outside
 * [A-Za-z0-9@%+=:,./_-]), or NULL when S may be printed bare. */
const char *engine_shell_unsafe(const char *s);
/* S as one shell word, by Python's shlex.quote: bare when engine_shell_unsafe finds nothing (and
 * S is not empty), else in single quotes with each ' as '"'"'. Writes DST only when the whole
 * word fits in CAP (else DST is ""), so a word is never cut inside its quotes. Returns the length
 * the word needs, as snprintf does. */
size_t engine_shell_quote(char *dst, size_t cap, const char *s);
/* The character at BAD (a byte of a longer text) named for a message: "'$'", "a newline", "a
 * control character (\x1b)", "a space". */
void engine_char_name(const char *bad, char *buf, size_t len);

/* Levenshtein distance between A and B, case folded when FOLD_CASE, for names of at most 63
 * characters (SIZE_MAX past): what "did you mean" and the nearest known architecture rank by. */
size_t engine_edit_distance(const char *a, const char *b, bool fold_case);

#endif
