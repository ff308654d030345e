/* text.c — strict UTF-8, the terminal sanitiser and shell quoting (text.h). */
#include "text.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ESCAPE_LEN 4 /* "\x1b" */

size_t engine_utf8_decode(const char *src, size_t len, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)src;
    *cp = ENGINE_UTF8_INVALID;
    if (!len)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    /* RFC 3629 table 3-7: the second byte's range is what rules out overlong forms (E0, F0),
     * surrogates (ED) and code points past U+10FFFF (F4); C0, C1 and F5..FF never lead. */
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    uint32_t v;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0f;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 1;
    }
    for (size_t i = 1; i < n; i++) {
        if (i >= len || s[i] < lo || s[i] > hi)
            return i; /* the maximal prefix: one U+FFFD for it */
        v = v << 6 | (s[i] & 0x3f);
        lo = 0x80;
        hi = 0xbf;
    }
    *cp = v;
    return n;
}

size_t engine_control_escape(uint32_t cp, char out[5])
{
    /* Python's repr: the three a reader knows by name, \xNN for the rest */
    if (cp == '\n' || cp == '\t' || cp == '\r') {
        out[0] = '\\';
        out[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
        out[2] = '\0';
        return 2;
    }
    snprintf(out, ESCAPE_LEN + 1, "\\x%02x", (unsigned)(cp & 0xff));
    return ESCAPE_LEN;
}

size_t engine_text_clean(char *dst, size_t cap, const char *src, size_t len)
{
    if (!cap)
        return 0;
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0, i = 0;
    /* printable ASCII eight bytes at a time (a server_args line is kilobytes of it): a block
     * holding a byte below 0x20, 0x7f or above (or, by a borrow, a neighbour of one) goes the
     * character-wise way below */
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    while (o + 8 < cap && i + 8 <= len) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (((x - 0x20 * ones) | x | (x + ones)) & highs)
            break;
        memcpy(dst + o, &x, 8);
        o += 8;
        i += 8;
    }
    while (i < len && s[i]) {
        if (s[i] >= 0x20 && s[i] < 0x7f) { /* printable ASCII, the common case, without the decoder */
            if (o + 2 > cap)
                break;
            dst[o++] = (char)s[i++];
            continue;
        }
        uint32_t cp;
        size_t n = engine_utf8_decode(src + i, len - i, &cp);
        if (cp == ENGINE_UTF8_INVALID) {
            if (o + sizeof ENGINE_REPLACEMENT_UTF8 > cap)
                break;
            memcpy(dst + o, ENGINE_REPLACEMENT_UTF8, sizeof ENGINE_REPLACEMENT_UTF8 - 1);
            o += sizeof ENGINE_REPLACEMENT_UTF8 - 1;
        } else if (engine_is_control(cp)) {
            char esc[ESCAPE_LEN + 1];
            size_t w = engine_control_escape(cp, esc);
            if (o + w + 1 > cap)
                break;
            memcpy(dst + o, esc, w);
            o += w;
        } else {
            if (o + n + 1 > cap)
                break;
            memcpy(dst + o, src + i, n);
            o += n;
        }
        i += n;
    }
    dst[o] = '\0';
    return o;
}

char *engine_text_cleaned(char *dst, size_t cap, const char *src)
{
    src = src ? src : "";
    engine_text_clean(dst, cap, src, strlen(src));
    return dst;
}

static bool shell_safe(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("@%+=:,./_-", c));
}

const char *engine_shell_unsafe(const char *s)
{
    for (; *s; s++)
        if (!shell_safe((unsigned char)*s))
            return s;
    return NULL;
}

size_t engine_shell_quote(char *dst, size_t cap, const char *s)
{
    static const char quote_in_quotes[] = "'\"'\"'"; /* close, a quoted ', reopen */
    bool bare = *s && !engine_shell_unsafe(s);
    size_t need = bare ? 0 : 2;
    for (const char *p = s; *p; p++)
        need += *p == '\'' ? sizeof quote_in_quotes - 1 : 1;
    if (need + 1 > cap) {
        if (cap)
            dst[0] = '\0';
        return need;
    }
    size_t o = 0;
    if (!bare)
        dst[o++] = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(dst + o, quote_in_quotes, sizeof quote_in_quotes - 1);
            o += sizeof quote_in_quotes - 1;
        } else {
            dst[o++] = *p;
        }
    }
    if (!bare)
        dst[o++] = '\'';
    dst[o] = '\0';
    return need;
}

void engine_char_name(const char *bad, char *buf, size_t len)
{
    uint32_t cp;
    size_t n = engine_utf8_decode(bad, strnlen(bad, 4), &cp);
    if (cp == '\n')
        snprintf(buf, len, "a newline");
    else if (cp == ' ')
        snprintf(buf, len, "a space");
    else if (cp == ENGINE_UTF8_INVALID)
        snprintf(buf, len, "a byte that is not UTF-8 (\\x%02x)", (unsigned char)bad[0]);
    else if (engine_is_control(cp))
        snprintf(buf, len, "a control character (\\x%02x)", (unsigned)cp);
    else if (cp < 0x80)
        snprintf(buf, len, "'%c'", (char)cp);
    else
        snprintf(buf, len, "'%.*s' (U+%04X)", (int)n, bad, (unsigned)cp);
}

size_t engine_edit_distance(const char *a, const char *b, bool fold_case)
{
    enum { NAME_MAX_LEN = 63 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
        return SIZE_MAX;
    size_t row[NAME_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            unsigned char x = (unsigned char)a[i - 1], y = (unsigned char)b[j - 1];
            size_t best = diag + (fold_case ? tolower(x) != tolower(y) : x != y);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
