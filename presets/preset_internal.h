/* preset_internal.h — what the loader's files share; nothing outside presets/ includes it.
 *
 * The loader is three files: preset_yaml.c reads a document and its scalars with
 * "FILE:LINE:COLUMN: what was wrong; what was expected" messages; preset_schema.c knows the
 * keys of each kind and fills the engine structs from them; preset_catalog.c holds the
 * built-in and user files, overrides by name and the look-ups. Every file is parsed once, when
 * the catalog is opened, into the engine struct of its kind; a deployment keeps its model and
 * GPU as names and is resolved against the catalog when it is loaded. */
#ifndef CGPLAN_PRESET_INTERNAL_H
#define CGPLAN_PRESET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preset.h"

#define PRESET_MSG_MAX 1024                  /* one message line, file:line:col included */
#define PRESET_LIST_MAX (PRESET_MSG_MAX / 2) /* an "a, b, c" list inside a message, leaving room for the rest */

typedef struct {
    size_t line, col; /* 1-based */
} preset_mark;

/* A deployment as its file gives it, before its model and GPU are looked up. */
typedef struct {
    char model[ENGINE_NAME_MAX], gpu[ENGINE_NAME_MAX];
    preset_mark model_mark, gpu_mark; /* where the names stand, for "names no preset" */
    bool has_context_len;             /* else the model's context_len applies */
    bool coef_set[COEF_COUNT];        /* the deployment's own coefficient overrides */
    uint64_t coef[COEF_COUNT];
    engine_deployment d; /* knobs, backend, a2a, sizes; model and GPU are filled at load */
} parsed_deployment;

/* One parsed file, as the catalog keeps it. */
typedef struct {
    preset_entry entry;
    char *origin;              /* untruncated, for messages; owned by whoever holds the item */
    preset_mark kind_mark;     /* where `kind:` stands, for "expected a deployment" */
    bool coef_own[COEF_COUNT]; /* models: the coefficients the file gives */
    union {
        engine_model model;
        engine_gpu gpu;
        parsed_deployment dep;
    } u;
} preset_item;

/* ---- Messages (preset_yaml.c). ---- */

/* SRC into DST (truncated to CAP); nothing when DST is NULL or CAP 0. */
void preset_copy_text(char *dst, size_t cap, const char *src);
/* Formats the message into ERR as one line (control characters escaped, so a quoted value cannot
 * break it). Every message leaves through here. Returns -1. */
int preset_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- The schema (preset_schema.c). ---- */

extern const char *const preset_kind_names[PRESET_DEPLOYMENT + 1]; /* "model", "gpu", "deployment" */

/* Parses TEXT (LEN bytes of the file ORIGIN, whose stem STEM must be its `name:`) into IT, which
 * is cleared first. Returns 0, or -1 with the one-line message in MSG. IT->origin is left to the
 * caller. */
int preset_parse_text(const char *origin, const char *stem, const char *text, size_t len, preset_item *it, char *msg,
                      size_t msglen);
/* The deployment DEP with its MODEL and GPU into OUT: the deployment's coefficients override the
 * model's, what neither gives is K3's; without its own context_len it takes the model's. */
void preset_assemble_deployment(const preset_item *dep, const preset_item *model, const preset_item *gpu,
                                engine_deployment *out);

#endif
