/* preset_yaml.c — one preset file through libyaml: the node tree of its one document, its
 * scalars (integers, sizes, bools, texts, choices, lists), the unknown-key check, and every
 * message as one line "FILE:LINE:COLUMN: what was wrong; what was expected". */
#include "preset_internal.h"
#include "preset_yaml.h"
#include "text.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SIZE_FRAC_DEN_MAX 1000000000000000ull /* 10^15: 15 fraction digits are exact in a double */

/* ---- Writing. ---- */

/* YAML 1.1's printable set (section 5.1): what a scalar may hold raw; NEL too is escaped, as
 * the C1 control a terminal would act on. */
static bool yaml_printable(uint32_t cp)
{
    return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) ||
           (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);
}

void preset_yaml_write_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = engine_utf8_decode(s + i, len - i, &cp);
        if (cp == '"' || cp == '\\')
            fprintf(f, "\\%c", (char)cp);
        else if (cp == ENGINE_UTF8_INVALID)
            fputs("\\uFFFD", f);
        else if (cp < 0x100 && !yaml_printable(cp))
            fprintf(f, "\\x%02x", (unsigned)cp);
        else if (!yaml_printable(cp))
            fprintf(f, "\\u%04x", (unsigned)cp);
        else
            fwrite(s + i, 1, n, f);
        i += n;
    }
    fputc('"', f);
}

void preset_yaml_write_comment_text(FILE *f, const char *s)
{
    char shown[ENGINE_TEXT_MAX * 4];
    fputs(engine_text_cleaned(shown, sizeof shown, s), f);
}

/* ---- Messages. ---- */

void preset_copy_text(char *dst, size_t cap, const char *src)
{
    if (dst && cap)
        snprintf(dst, cap, "%s", src);
}

int preset_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        char line[PRESET_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        /* a value quoted in a message (a quoted scalar may hold a newline, a file name an ESC)
         * cannot break the one-line rule or drive the terminal */
        engine_text_cleaned(err, errlen, line);
    }
    return -1;
}

/* "a, b, c" into BUF. */
static void join_names(const char *const *names, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- Numbers. ---- */

/* The decimal digits at *S into OUT, *S moved past them. False when there are none (a sign is
 * not a digit) or they overflow 64 bits. */
static bool read_decimal(const char **s, uint64_t *out)
{
    const char *q = *s;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*q))
        return false;
    for (; isdigit((unsigned char)*q); q++) {
        unsigned digit = (unsigned)(*q - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    *s = q;
    *out = v;
    return true;
}

int preset_parse_size(const char *text, uint64_t *out)
{
    static const struct {
        const char *unit;
        uint64_t mult;
    } units[] = {{"B", 1},
                 {"KiB", (uint64_t)1 << 10},
                 {"MiB", (uint64_t)1 << 20},
                 {"GiB", (uint64_t)1 << 30},
                 {"TiB", (uint64_t)1 << 40}};
    if (!text || !out)
        return -1;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    uint64_t whole = 0;
    if (!read_decimal(&p, &whole))
        return -1;
    /* The fraction as an integer over a power of ten: no strtod, so no locale decimal point. */
    uint64_t frac = 0, frac_den = 1;
    bool has_frac = false;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        has_frac = true;
        for (; isdigit((unsigned char)*p); p++)
            if (frac_den < SIZE_FRAC_DEN_MAX) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_den *= 10;
            }
    }
    while (isspace((unsigned char)*p))
        p++;
    const char *unit = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t unit_len = (size_t)(p - unit);
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    uint64_t mult = 0;
    if (unit_len == 0) {
        if (has_frac)
            return -1; /* a bare number is a byte count: an integer */
        mult = 1;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].unit) == unit_len && strncasecmp(unit, units[i].unit, unit_len) == 0)
                mult = units[i].mult;
        if (!mult)
            return -1;
    }
    if (whole > UINT64_MAX / mult)
        return -1;
    uint64_t v = whole * mult;
    if (frac) {
        double part = (double)frac / (double)frac_den * (double)mult; /* < mult <= 2^40 */
        uint64_t r = (uint64_t)floor(part + 0.5);
        if (v > UINT64_MAX - r)
            return -1;
        v += r;
    }
    *out = v;
    return 0;
}

/* ---- Nodes and messages at them. ---- */

preset_mark preset_yaml_mark(yaml_mark_t m)
{
    preset_mark r = {m.line + 1, m.column + 1};
    return r;
}

int preset_yaml_error(preset_yaml_doc *p, yaml_mark_t at, const char *fmt, ...)
{
    char what[PRESET_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return preset_set_err(p->msg, p->msglen, "%s:%zu:%zu: %s", p->origin, at.line + 1, at.column + 1, what);
}

yaml_node_t *preset_yaml_node(preset_yaml_doc *p, int index)
{
    return yaml_document_get_node(&p->doc, index);
}

const char *preset_yaml_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

const char *preset_yaml_describe(const yaml_node_t *n, char *buf, size_t len)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    const char *s = preset_yaml_text(n);
    if (!*s)
        return "nothing";
    snprintf(buf, len, "'%.*s%s'", PRESET_PREVIEW, s, strlen(s) > PRESET_PREVIEW ? "..." : "");
    return buf;
}

int preset_yaml_expect_scalar(preset_yaml_doc *p, const yaml_node_t *n, const char *key, const char *expected)
{
    char buf[PRESET_QUOTED_MAX];
    if (n->type != YAML_SCALAR_NODE)
        return preset_yaml_error(p, n->start_mark, "%s: got %s; expected %s", key,
                                 preset_yaml_describe(n, buf, sizeof buf), expected);
    if (strlen(preset_yaml_text(n)) != n->data.scalar.length)
        return preset_yaml_error(p, n->start_mark, "%s: the value contains a NUL character; expected %s", key,
                                 expected);
    return 0;
}

int preset_yaml_collect(preset_yaml_doc *p, yaml_node_t *map, const char *what, const char *const *keys, size_t nkeys,
                        yaml_node_t **vals)
{
    yaml_node_t *key_nodes[PRESET_MAX_KEYS] = {0};
    char allowed[PRESET_LIST_MAX];
    if (nkeys > PRESET_MAX_KEYS)
        abort(); /* a programming error: raise PRESET_MAX_KEYS */
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = NULL;
    join_names(keys, nkeys, allowed, sizeof allowed);
    if (map->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, map->start_mark, "%s: got %s; expected a mapping of: %s", what,
                                 preset_yaml_describe(map, buf, sizeof buf), allowed);
    }
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = preset_yaml_node(p, pair->key), *v = preset_yaml_node(p, pair->value);
        if (k->type != YAML_SCALAR_NODE)
            return preset_yaml_error(p, k->start_mark, "a key in %s is not a name; expected one of: %s", what, allowed);
        const char *name = preset_yaml_text(k);
        size_t i = 0;
        while (i < nkeys && strcmp(keys[i], name) != 0)
            i++;
        if (i == nkeys)
            return preset_yaml_error(p, k->start_mark, "unknown key '%.*s' in %s; expected one of: %s", PRESET_PREVIEW,
                                     name, what, allowed);
        if (vals[i])
            return preset_yaml_error(p, k->start_mark,
                                     "key '%s' appears twice in %s (first at line %zu); expected it once", name, what,
                                     key_nodes[i]->start_mark.line + 1);
        key_nodes[i] = k;
        vals[i] = v;
    }
    return 0;
}

int preset_yaml_need(preset_yaml_doc *p, const yaml_node_t *map, const char *what, const char *key,
                     const yaml_node_t *val, const char *hint)
{
    if (val)
        return 0;
    return preset_yaml_error(p, map->start_mark, "%s has no '%s' key; expected %s: %s", what, key, key, hint);
}

yaml_node_t *preset_yaml_peek(preset_yaml_doc *p, yaml_node_t *map, const char *key)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = preset_yaml_node(p, pair->key);
        if (k->type == YAML_SCALAR_NODE && strcmp(preset_yaml_text(k), key) == 0)
            return preset_yaml_node(p, pair->value);
    }
    return NULL;
}

/* ---- Scalars. ---- */

int preset_yaml_get_u64(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
                        uint64_t *out)
{
    char expected[PRESET_PHRASE_MAX];
    if (max == UINT64_MAX || max == UINT32_MAX)
        snprintf(expected, sizeof expected, "an integer of at least %llu", (unsigned long long)min);
    else
        snprintf(expected, sizeof expected, "an integer in %llu..%llu", (unsigned long long)min,
                 (unsigned long long)max);
    if (!n)
        return 0;
    if (preset_yaml_expect_scalar(p, n, key, expected))
        return -1;
    const char *q = preset_yaml_text(n);
    uint64_t v = 0;
    bool ok = read_decimal(&q, &v) && *q == '\0';
    if (!ok || v < min || v > max) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, n->start_mark, "%s: got %s; expected %s", key,
                                 preset_yaml_describe(n, buf, sizeof buf), expected);
    }
    *out = v;
    return 0;
}

int preset_yaml_get_u32(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint32_t min, uint32_t max,
                        uint32_t *out)
{
    uint64_t v = 0;
    if (!n)
        return 0;
    if (preset_yaml_get_u64(p, n, key, min, max, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int preset_yaml_get_size(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint64_t *out)
{
    static const char expected[] = "a byte count or a number with a unit B, KiB, MiB, GiB or TiB (like 150 GiB)";
    if (!n)
        return 0;
    if (preset_yaml_expect_scalar(p, n, key, expected))
        return -1;
    if (preset_parse_size(preset_yaml_text(n), out) != 0) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, n->start_mark, "%s: got %s; expected %s", key,
                                 preset_yaml_describe(n, buf, sizeof buf), expected);
    }
    return 0;
}

int preset_yaml_get_bool(preset_yaml_doc *p, const yaml_node_t *n, const char *key, bool *out)
{
    if (!n)
        return 0;
    if (preset_yaml_expect_scalar(p, n, key, "true or false"))
        return -1;
    const char *s = preset_yaml_text(n);
    if (strcasecmp(s, "true") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0)
        *out = false;
    else {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, n->start_mark, "%s: got %s; expected true or false", key,
                                 preset_yaml_describe(n, buf, sizeof buf));
    }
    return 0;
}

int preset_yaml_get_text(preset_yaml_doc *p, const yaml_node_t *n, const char *key, char *out, size_t cap)
{
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "a text of at most %zu bytes", cap - 1);
    if (!n)
        return 0;
    if (preset_yaml_expect_scalar(p, n, key, expected))
        return -1;
    if (n->data.scalar.length >= cap)
        return preset_yaml_error(p, n->start_mark, "%s: the value is %zu bytes long; expected %s", key,
                                 n->data.scalar.length, expected);
    memcpy(out, preset_yaml_text(n), n->data.scalar.length + 1);
    return 0;
}

int preset_yaml_get_choice(preset_yaml_doc *p, const yaml_node_t *n, const char *key, const char *const *names,
                           size_t count, int *out)
{
    char allowed[PRESET_LIST_MAX];
    join_names(names, count, allowed, sizeof allowed);
    if (!n)
        return 0;
    if (preset_yaml_expect_scalar(p, n, key, allowed))
        return -1;
    for (size_t i = 0; i < count; i++)
        if (strcmp(preset_yaml_text(n), names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    char buf[PRESET_QUOTED_MAX];
    return preset_yaml_error(p, n->start_mark, "%s: got %s; expected one of: %s", key,
                             preset_yaml_describe(n, buf, sizeof buf), allowed);
}

/* ---- Lists. ---- */

char *preset_yaml_join_list(preset_yaml_doc *p, const yaml_node_t *n, const char *key)
{
    const yaml_node_item_t *first = n->data.sequence.items.start, *end = n->data.sequence.items.top;
    size_t len = sizeof "[]"; /* the brackets and the NUL; each item adds itself and ", " */
    for (const yaml_node_item_t *it = first; it < end; it++)
        len += strlen(preset_yaml_text(preset_yaml_node(p, *it))) + strlen(", ");
    char *text = malloc(len);
    if (!text) {
        preset_yaml_error(p, n->start_mark, "%s: out of memory", key);
        return NULL;
    }
    size_t used = 0;
    text[used++] = '[';
    for (const yaml_node_item_t *it = first; it < end; it++)
        used += (size_t)snprintf(text + used, len - used, "%s%s", it > first ? ", " : "",
                                 preset_yaml_text(preset_yaml_node(p, *it)));
    snprintf(text + used, len - used, "]");
    return text;
}

/* ---- Nesting, before libyaml. ---- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int too_deep(const char *origin, size_t line, size_t col, char *msg, size_t msglen)
{
    return preset_set_err(msg, msglen,
                          "%s:%zu:%zu: the file nests deeper than %d levels; expected a preset (a mapping of keys, "
                          "a few of them holding a mapping or a list)",
                          origin, line, col, PRESET_DEPTH_MAX);
}

static int too_many_openers(const char *origin, size_t line, size_t col, char *msg, size_t msglen)
{
    return preset_set_err(msg, msglen,
                          "%s:%zu:%zu: more than %d '[' and '{' in the file; expected a preset (a mapping with a few "
                          "flow lists)",
                          origin, line, col, PRESET_FLOW_OPENERS_MAX);
}

/* The scan reads YAML's structure coarsely: indentation and compact "- " / "? " entries for
 * block depth; brackets outside quotes, comments and block scalars for flow depth. Where it can
 * misread (a quote inside a block scalar's text), the opener count still bounds what libyaml
 * sees, so no file reaches libyaml deeper than PRESET_FLOW_OPENERS_MAX. */
int preset_yaml_check_nesting(const char *origin, const char *text, size_t len, char *msg, size_t msglen)
{
    size_t indents[PRESET_DEPTH_MAX + 1]; /* the open block levels' columns, increasing */
    size_t n_indents = 0, flow = 0, openers = 0, line = 0, i = 0;
    size_t literal_indent = 0; /* inside a "|" or ">" block scalar: deeper lines are its text */
    bool literal = false;
    char quote = 0; /* the open quoted scalar's quote, or 0 */
    while (i < len) {
        size_t start = i, eol = i;
        while (eol < len && text[eol] != '\n')
            eol++;
        line++;
        size_t indent = 0;
        while (start + indent < eol && text[start + indent] == ' ')
            indent++;
        bool blank = start + indent == eol || text[start + indent] == '\r';
        if (literal && (blank || indent > literal_indent)) {
            for (size_t k = start; k < eol; k++) /* its text is not structure, but it is counted */
                if ((text[k] == '[' || text[k] == '{') && ++openers > PRESET_FLOW_OPENERS_MAX)
                    return too_many_openers(origin, line, k - start + 1, msg, msglen);
            i = eol + 1;
            continue;
        }
        literal = false;
        size_t depth = n_indents;
        i = start;
        if (!quote && flow == 0 && !blank && text[start + indent] != '#') {
            while (n_indents && indents[n_indents - 1] > indent)
                n_indents--;
            if (!n_indents || indents[n_indents - 1] < indent) {
                if (n_indents == PRESET_DEPTH_MAX)
                    return too_deep(origin, line, indent + 1, msg, msglen);
                indents[n_indents++] = indent;
            }
            depth = n_indents;
            i = start + indent;
            while (i + 1 < eol && (text[i] == '-' || text[i] == '?') && is_blank(text[i + 1])) {
                if (++depth > PRESET_DEPTH_MAX)
                    return too_deep(origin, line, i - start + 1, msg, msglen);
                i += 2;
                while (i < eol && is_blank(text[i]))
                    i++;
            }
        }
        /* PREV: the byte before. LAST: what the last non-blank byte was to YAML, an indicator
         * (":-?,[{" when it acted as one) or 'a' for the text of a scalar. */
        char prev = ' ', last = 0;
        const char *value = NULL; /* where the last token outside quotes started */
        for (; i < eol; i++) {
            char c = text[i];
            if ((c == '[' || c == '{') && ++openers > PRESET_FLOW_OPENERS_MAX)
                return too_many_openers(origin, line, i - start + 1, msg, msglen);
            if (quote) {
                if (quote == '"' && c == '\\' && i + 1 < eol)
                    i++;
                else if (quote == '\'' && c == '\'' && i + 1 < eol && text[i + 1] == '\'')
                    i++; /* '' inside '...' */
                else if (c == quote)
                    quote = 0;
                prev = c;
                last = 'a';
                continue;
            }
            if (c == '#' && is_blank(prev))
                break; /* a comment: the rest of the line */
            if (is_blank(c)) {
                prev = c;
                continue;
            }
            bool next_blank = i + 1 >= eol || is_blank(text[i + 1]) || text[i + 1] == '\r';
            bool after_indicator = !last || strchr(":-?,[{", last) != NULL;
            bool token_start = after_indicator && (is_blank(prev) || strchr(",[{", prev) || prev == ':' || !last);
            char role = 'a';
            if (token_start)
                value = text + i;
            if ((c == '"' || c == '\'') && token_start) {
                quote = c;
            } else if ((c == '[' || c == '{') && (flow > 0 || token_start)) {
                if (++flow + depth > PRESET_DEPTH_MAX)
                    return too_deep(origin, line, i - start + 1, msg, msglen);
                role = c;
            } else if ((c == ']' || c == '}') && flow > 0) {
                flow--;
            } else if (c == ',' && flow > 0) {
                role = c;
            } else if (c == ':' && (next_blank || flow > 0)) {
                role = c;
            } else if ((c == '-' || c == '?') && token_start && next_blank) {
                role = c;
            }
            last = role;
            prev = c;
        }
        /* "key: |" or "key: >-": the lines deeper than this one are the scalar's text */
        if (!quote && flow == 0 && value && (*value == '|' || *value == '>')) {
            literal = true;
            literal_indent = indent;
        }
        i = eol + 1;
    }
    return 0;
}

/* ---- The document. ---- */

static void parser_error(preset_yaml_doc *p, const yaml_parser_t *parser, const char *text, size_t len)
{
    yaml_mark_t at = parser->problem_mark;
    if (parser->error == YAML_READER_ERROR) { /* the reader gives a byte offset, not a mark */
        memset(&at, 0, sizeof at);
        for (size_t i = 0; i < parser->problem_offset && i < len; i++) {
            if (text[i] == '\n') {
                at.line++;
                at.column = 0;
            } else
                at.column++;
        }
    }
    char context[PRESET_PHRASE_MAX] = "";
    if (parser->context)
        snprintf(context, sizeof context, " (%s at line %zu, column %zu)", parser->context,
                 parser->context_mark.line + 1, parser->context_mark.column + 1);
    bool tab = parser->error != YAML_READER_ERROR && at.index < len && text[at.index] == '\t';
    preset_yaml_error(
        p, at, "malformed YAML: %s%s; expected %s", parser->problem ? parser->problem : "unknown error", context,
        tab ? "spaces, not a tab, for indentation" : "well-formed YAML (block mappings, closed brackets and quotes)");
}

yaml_node_t *preset_yaml_open(preset_yaml_doc *p, const char *origin, const char *text, size_t len, char *msg,
                              size_t msglen, const char *root_expected)
{
    yaml_parser_t parser;
    *p = (preset_yaml_doc){.origin = origin, .msg = msg, .msglen = msglen};
    if (preset_yaml_check_nesting(origin, text, len, msg, msglen) != 0)
        return NULL;
    if (!yaml_parser_initialize(&parser)) {
        preset_set_err(msg, msglen, "%s: out of memory", origin);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &p->doc)) { /* which leaves no document behind */
        parser_error(p, &parser, text, len);
        yaml_parser_delete(&parser);
        return NULL;
    }
    p->loaded = true;
    yaml_node_t *root = yaml_document_get_root_node(&p->doc);
    yaml_mark_t start = {0, 0, 0};
    if (!root) {
        preset_yaml_error(p, start, "the file is empty; expected %s", root_expected);
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_document_t next;
    if (!yaml_parser_load(&parser, &next)) {
        parser_error(p, &parser, text, len);
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_parser_delete(&parser);
    yaml_node_t *next_root = yaml_document_get_root_node(&next);
    yaml_mark_t next_at = next_root ? next_root->start_mark : start;
    yaml_document_delete(&next);
    if (next_root) {
        preset_yaml_error(p, next_at, "a second YAML document; expected one preset per file");
        return NULL;
    }
    if (root->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        preset_yaml_error(p, root->start_mark, "the file holds %s; expected %s",
                          preset_yaml_describe(root, buf, sizeof buf), root_expected);
        return NULL;
    }
    return root;
}

void preset_yaml_close(preset_yaml_doc *p)
{
    if (p->loaded)
        yaml_document_delete(&p->doc);
    p->loaded = false;
}
