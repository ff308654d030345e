/* sglang_args.h — a whole SGLang launch line read as SGLang resolves it: the knobs it sets, and
 * each flag's status, so nothing is dropped without a word (`--sglang-args`, `cgplan lint`).
 * Pure: text into caller-owned structs. */
#ifndef CGPLAN_SGLANG_ARGS_H
#define CGPLAN_SGLANG_ARGS_H

#include "engine.h"

#define ENGINE_SGLANG_LINE_MAX 8192 /* bytes of one launch line: cgplan launch's longest is far shorter */
#define ENGINE_SGLANG_WORDS_MAX 512 /* shell words of one line */
#define ENGINE_SGLANG_FLAGS_MAX 128 /* flags (and environment assignments) one line reports */

typedef enum {
    SGLANG_FLAG_MODELLED,     /* it moves a knob or a term (or names the model) */
    SGLANG_FLAG_NO_EFFECT,    /* known to leave graph and KV memory alone (--host, --port, ...) */
    SGLANG_FLAG_NOT_MODELLED, /* a known SGLang flag that can move memory; cgplan does not model it */
    SGLANG_FLAG_UNKNOWN,      /* not an SGLang flag (argparse would refuse it) */
    SGLANG_FLAG_REJECTED,     /* an SGLang flag the plan's release does not have yet */
    SGLANG_FLAG_STATUS_COUNT
} engine_sglang_flag_status;
/* "modelled", "no_effect", "not_modelled", "unknown", "rejected" (the JSON's words). */
extern const char *const engine_sglang_flag_status_names[SGLANG_FLAG_STATUS_COUNT];

typedef struct {
    char flag[64];                   /* "--tp-size" as written (without "=value"), or an env NAME */
    char value[ENGINE_TEXT_MAX / 2]; /* its value ("" for a switch; a list space-separated) */
    engine_sglang_flag_status status;
    engine_sglang_flag_status read_status; /* as read, before the release's check */
    char note[ENGINE_TEXT_MAX];      /* what it moves, or why it is not modelled / refused */
    char read_note[ENGINE_TEXT_MAX]; /* the note as read, kept while the release rejects the flag */
    int release_flag;                /* the engine_release_flag it needs; -1: none; -2: the -decode graph flags */
} engine_sglang_flag;

typedef struct {
    bool program;            /* the line names SGLang's server (sglang.launch_server, `sglang serve`) */
    bool other_program;      /* the line runs something else first ("ls -la"): not a launch line */
    int n_flags;             /* flags held in FLAGS */
    int n_dropped;           /* flags past ENGINE_SGLANG_FLAGS_MAX, read but not listed */
    engine_sglang_flag flags[ENGINE_SGLANG_FLAGS_MAX];
    int n_status[SGLANG_FLAG_STATUS_COUNT];
    char model_path[ENGINE_TEXT_MAX]; /* --model-path's value; "" if none */
    bool max_bs_given, buckets_given, max_running_given, speculative;
} engine_sglang_line;

/* Reads TEXT, a launch line as a shell would split it ('...' and "..." quotes, `\`-newline
 * continuations, NAME=VALUE assignments and `export` before the command, python3 -m
 * sglang.launch_server or `sglang serve`; flags alone work too), into D's knobs and OUT's
 * per-flag list. Statuses are read against D's release (knobs.sglang); a later change of
 * release re-checks with engine_sglang_line_check_release. ADJ (may be NULL) gets the knobs'
 * own adjustments. Returns 0, or -1 with ERR naming the flag (or the bound) and the fix. */
int engine_sglang_read_line(engine_deployment *d, const char *text, engine_sglang_line *out, engine_warnings *adj,
                            char *err, size_t errlen);
/* Marks the flags release R lacks as SGLANG_FLAG_REJECTED (and a flag it has back to what it
 * read as), recounting n_status. */
void engine_sglang_line_check_release(engine_sglang_line *line, const engine_release *r);
/* A launch line: it names SGLang's server, or is flags alone; not another program. */
static inline bool engine_sglang_line_is_launch(const engine_sglang_line *l)
{
    return !l->other_program && (l->program || l->n_flags + l->n_dropped > 0);
}

#endif
