/* preset_yaml.h — reading one preset file with libyaml: the document's node tree, its scalars,
 * and the "FILE:LINE:COLUMN: what was wrong; what was expected" message when one is wrong.
 * Internal to presets/.
 *
 * Every function that can fail writes its one-line message into the document's MSG and returns
 * -1 (or NULL). The getters take the value node of a key, or NULL when the key is absent: then
 * they leave OUT alone and succeed (required keys are checked with preset_yaml_need first). */
#ifndef CGPLAN_PRESET_YAML_H
#define CGPLAN_PRESET_YAML_H

#include <yaml.h>

#include "preset_internal.h"

#define PRESET_PHRASE_MAX 160 /* one clause of a message ("an integer in 1..1024", libyaml's context) */
#define PRESET_MAX_KEYS 40    /* the most keys a mapping takes: the deployment's (asserted there) */
#define PRESET_PREVIEW 48     /* characters of an offending value quoted in a message */
#define PRESET_QUOTED_MAX (PRESET_PREVIEW + 8) /* a preview, its quotes, "..." and the NUL */
/* Nesting: presets need two levels of collections (the root mapping, then `attention:` or a
 * flow list); 8 leaves room for any sane layout. The check is a byte scan that runs before
 * libyaml, whose scanner is quadratic in flow depth (40,000 levels cost seconds). */
#define PRESET_DEPTH_MAX 8
/* Every '[' and '{' of the file, wherever it stands (comments and quotes too): a bound on the
 * flow depth libyaml can reach that does not depend on the scan reading quotes and comments as
 * libyaml does. A preset has a handful. */
#define PRESET_FLOW_OPENERS_MAX 256

typedef struct {
    const char *origin; /* the file, as messages name it */
    char *msg;          /* where the one message goes */
    size_t msglen;
    yaml_document_t doc;
    bool loaded; /* doc holds a document to delete */
} preset_yaml_doc;

/* The byte scan: 0 when TEXT nests at most PRESET_DEPTH_MAX collections deep (block indentation,
 * compact "- " entries and flow brackets together) and holds at most PRESET_FLOW_OPENERS_MAX
 * flow openers; else -1 with "ORIGIN:LINE:COLUMN: ..." in MSG. Linear in LEN. */
int preset_yaml_check_nesting(const char *origin, const char *text, size_t len, char *msg, size_t msglen);

/* Parses TEXT (LEN bytes of the file ORIGIN) into P. The file must hold one document whose root
 * is a mapping; ROOT_EXPECTED says what that mapping should be ("a mapping with kind: ..."), for
 * the messages. Returns the root mapping, or NULL with the message in MSG. Call
 * preset_yaml_close(P) either way. */
yaml_node_t *preset_yaml_open(preset_yaml_doc *p, const char *origin, const char *text, size_t len, char *msg,
                              size_t msglen, const char *root_expected);
void preset_yaml_close(preset_yaml_doc *p);

/* "ORIGIN:LINE:COLUMN: " and the message, AT being libyaml's 0-based mark. Returns -1. */
int preset_yaml_error(preset_yaml_doc *p, yaml_mark_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
preset_mark preset_yaml_mark(yaml_mark_t m);

yaml_node_t *preset_yaml_node(preset_yaml_doc *p, int index);
const char *preset_yaml_text(const yaml_node_t *n); /* a scalar's value */
/* The offending value as quoted in a message: the scalar (cut short, in BUF) or what it is
 * instead ("a list", "a mapping", "nothing"). */
const char *preset_yaml_describe(const yaml_node_t *n, char *buf, size_t len);
/* N is a scalar without a NUL in it; else "KEY: got ...; expected EXPECTED". */
int preset_yaml_expect_scalar(preset_yaml_doc *p, const yaml_node_t *n, const char *key, const char *expected);

/* Reads the pairs of mapping MAP into VALS (indexed like KEYS, NULL for an absent key); an
 * unknown or repeated key is an error that lists the keys WHAT allows. */
int preset_yaml_collect(preset_yaml_doc *p, yaml_node_t *map, const char *what, const char *const *keys, size_t nkeys,
                        yaml_node_t **vals);
/* A required key: VAL missing is an error located at the start of MAP, saying KEY: HINT. */
int preset_yaml_need(preset_yaml_doc *p, const yaml_node_t *map, const char *what, const char *key,
                     const yaml_node_t *val, const char *hint);
/* The value of KEY in MAP without the full key check (for a key that selects the key set). */
yaml_node_t *preset_yaml_peek(preset_yaml_doc *p, yaml_node_t *map, const char *key);

/* Scalars. An integer is decimal digits within MIN..MAX; a size goes through preset_parse_size;
 * a bool is true or false (any case); a text fits CAP with its NUL; a choice is one of NAMES,
 * its index into OUT. */
int preset_yaml_get_u64(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
                        uint64_t *out);
int preset_yaml_get_u32(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint32_t min, uint32_t max,
                        uint32_t *out);
int preset_yaml_get_size(preset_yaml_doc *p, const yaml_node_t *n, const char *key, uint64_t *out);
int preset_yaml_get_bool(preset_yaml_doc *p, const yaml_node_t *n, const char *key, bool *out);
int preset_yaml_get_text(preset_yaml_doc *p, const yaml_node_t *n, const char *key, char *out, size_t cap);
int preset_yaml_get_choice(preset_yaml_doc *p, const yaml_node_t *n, const char *key, const char *const *names,
                           size_t count, int *out);

/* Lists. The items of sequence N, every one a scalar the caller has checked, joined as the flow
 * list "[a, b, c]": a malloc'd string, or NULL (out of memory, said as KEY's error). */
char *preset_yaml_join_list(preset_yaml_doc *p, const yaml_node_t *n, const char *key);

#endif
