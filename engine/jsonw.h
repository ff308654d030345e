/* jsonw.h — a small streaming JSON writer onto a FILE * (the only I/O the engine does is into a
 * stream its caller hands in). Commas and nesting are tracked here so callers never print one. */
#ifndef CGPLAN_JSONW_H
#define CGPLAN_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

typedef struct {
    FILE *out;
    int depth;
    bool first[JSONW_MAX_DEPTH]; /* no element written yet at this depth */
    bool after_key;
    bool pretty;
} jsonw;

void jsonw_init(jsonw *w, FILE *out, bool pretty);
void jsonw_object_begin(jsonw *w);
void jsonw_object_end(jsonw *w);
void jsonw_array_begin(jsonw *w);
void jsonw_array_end(jsonw *w);
void jsonw_key(jsonw *w, const char *key);
void jsonw_string(jsonw *w, const char *s); /* NULL writes null */
void jsonw_u64(jsonw *w, uint64_t v);
void jsonw_i64(jsonw *w, int64_t v);
void jsonw_double(jsonw *w, double v, int decimals); /* non-finite writes null */
void jsonw_bool(jsonw *w, bool v);
void jsonw_null(jsonw *w);
/* key + value shorthands */
void jsonw_kstring(jsonw *w, const char *key, const char *s);
void jsonw_ku64(jsonw *w, const char *key, uint64_t v);
void jsonw_ki64(jsonw *w, const char *key, int64_t v);
void jsonw_kdouble(jsonw *w, const char *key, double v, int decimals);
void jsonw_kbool(jsonw *w, const char *key, bool v);
void jsonw_knull(jsonw *w, const char *key);

#endif
