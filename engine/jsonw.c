#include "jsonw.h"

#include <math.h>
#include <string.h>

#include "text.h"

void jsonw_init(jsonw *w, FILE *out, bool pretty)
{
    w->out = out;
    w->depth = 0;
    w->first[0] = true;
    w->after_key = false;
    w->pretty = pretty;
}

static void newline_indent(jsonw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Separates a new value from its predecessor, unless it follows its key. */
static void before_value(jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth])
        fputc(',', w->out);
    w->first[w->depth] = false;
    if (w->depth > 0)
        newline_indent(w);
}

static void open(jsonw *w, char c)
{
    before_value(w);
    fputc(c, w->out);
    if (w->depth + 1 < JSONW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
}

static void close(jsonw *w, char c)
{
    bool empty = w->first[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty)
        newline_indent(w);
    fputc(c, w->out);
    if (w->depth == 0 && w->pretty)
        fputc('\n', w->out);
}

void jsonw_object_begin(jsonw *w) { open(w, '{'); }
void jsonw_object_end(jsonw *w) { close(w, '}'); }
void jsonw_array_begin(jsonw *w) { open(w, '['); }
void jsonw_array_end(jsonw *w) { close(w, ']'); }

/* S as a JSON string: always valid UTF-8 (RFC 8259 section 8.1), whatever S holds: a byte
 * that is not strict UTF-8 (text.h) is written as U+FFFD, and every control (C0, DEL, C1) as
 * \u00XX. */
static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(out, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, out);
            } else {
                uint32_t cp;
                size_t n = engine_utf8_decode((const char *)p, strnlen((const char *)p, 4), &cp);
                if (cp == ENGINE_UTF8_INVALID)
                    fputs(ENGINE_REPLACEMENT_UTF8, out);
                else if (engine_is_control(cp)) /* C1: valid JSON raw, but inert escaped */
                    fprintf(out, "\\u%04x", (unsigned)cp);
                else
                    fwrite(p, 1, n, out);
                p += n - 1;
            }
        }
    }
    fputc('"', out);
}

void jsonw_key(jsonw *w, const char *key)
{
    before_value(w);
    write_escaped(w->out, key);
    fputs(w->pretty ? ": " : ":", w->out);
    w->after_key = true;
}

void jsonw_string(jsonw *w, const char *s)
{
    before_value(w);
    if (s)
        write_escaped(w->out, s);
    else
        fputs("null", w->out);
}

void jsonw_u64(jsonw *w, uint64_t v)
{
    before_value(w);
    fprintf(w->out, "%llu", (unsigned long long)v);
}

void jsonw_i64(jsonw *w, int64_t v)
{
    before_value(w);
    fprintf(w->out, "%lld", (long long)v);
}

void jsonw_double(jsonw *w, double v, int decimals)
{
    before_value(w);
    if (!isfinite(v))
        fputs("null", w->out);
    else
        fprintf(w->out, "%.*f", decimals, v);
}

void jsonw_bool(jsonw *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void jsonw_null(jsonw *w)
{
    before_value(w);
    fputs("null", w->out);
}

void jsonw_kstring(jsonw *w, const char *key, const char *s) { jsonw_key(w, key); jsonw_string(w, s); }
void jsonw_ku64(jsonw *w, const char *key, uint64_t v) { jsonw_key(w, key); jsonw_u64(w, v); }
void jsonw_ki64(jsonw *w, const char *key, int64_t v) { jsonw_key(w, key); jsonw_i64(w, v); }
void jsonw_kdouble(jsonw *w, const char *key, double v, int decimals) { jsonw_key(w, key); jsonw_double(w, v, decimals); }
void jsonw_kbool(jsonw *w, const char *key, bool v) { jsonw_key(w, key); jsonw_bool(w, v); }
void jsonw_knull(jsonw *w, const char *key) { jsonw_key(w, key); jsonw_null(w); }
