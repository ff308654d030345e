/* preset.h — YAML presets (models, GPUs, deployments) turned into engine structs.
 *
 * Three kinds, one file each, referring to each other by name (MODEL.md, "Presets"). Built-in
 * presets are embedded in the binary (cmake/embed_presets.cmake); files in the user's config
 * directory ($CGPLAN_PRESETS, else $XDG_CONFIG_HOME/cgplan/presets, else
 * ~/.config/cgplan/presets) override built-in ones of the same name. Every error names the file,
 * line and column and what was expected; an unknown key is an error. */
#ifndef CGPLAN_PRESET_H
#define CGPLAN_PRESET_H

#include <stdio.h>

#include "engine.h"

typedef struct {
    const char *file_name; /* "k3-dp16.yaml" */
    const char *text;
} preset_builtin_file;
extern const preset_builtin_file preset_builtin_files[]; /* terminated by {0, 0} */

typedef enum { PRESET_MODEL, PRESET_GPU, PRESET_DEPLOYMENT } preset_kind;

typedef struct {
    char name[ENGINE_NAME_MAX];     /* the file's stem, which is also its `name:` */
    char origin[ENGINE_TEXT_MAX];   /* "builtin:k3-dp16.yaml" or the user file's path */
    preset_kind kind;
    char model[ENGINE_NAME_MAX];    /* deployments: model and GPU names; models: "" */
    char gpu[ENGINE_NAME_MAX];
    char description[ENGINE_TEXT_MAX];
    uint32_t world, dp, dcp, mtp, max_bs; /* deployments: the layout, for `cgplan presets` */
} preset_entry;

typedef struct preset_catalog preset_catalog;

/* Builds the catalog of every built-in and user preset (user ones win by name), reading each
 * file once. Files that do not parse are not fatal here: each becomes a problem (below), and
 * loading that name returns 1 with the problem's message (a broken user file hides a built-in
 * of the same name rather than silently falling back to it). Returns NULL only on
 * out-of-memory. */
preset_catalog *preset_catalog_open(void);
void preset_catalog_free(preset_catalog *c);
size_t preset_catalog_count(const preset_catalog *c);
const preset_entry *preset_catalog_get(const preset_catalog *c, size_t i);
const preset_entry *preset_catalog_find(const preset_catalog *c, const char *name, preset_kind kind);
/* The files that did not load (and an unreadable user directory), each as its one-line
 * "FILE:LINE:COLUMN: what was wrong; what was expected" message. */
size_t preset_catalog_problem_count(const preset_catalog *c);
const char *preset_catalog_problem(const preset_catalog *c, size_t i);

/* Loads a deployment by name (or by a path: NAME_OR_PATH contains '/' or ends in .yaml) with
 * its model and GPU (looked up in the catalog by name) into OUT. Coefficients: the deployment's
 * override the model's, the rest are K3's (model.coef_borrowed says some are); a deployment
 * without context_len takes the model's. Returns 0; 1 when a file is bad (malformed YAML,
 * unknown key, missing model/GPU: ERR says file:line:column: what was expected); 2 when NAME
 * names no deployment preset (ERR lists the ones there are). */
int preset_load_deployment(const preset_catalog *c, const char *name_or_path, engine_deployment *out,
                           char *err, size_t errlen);
/* Loads one GPU preset (for --set gpu=NAME and the TUI's GPU knob); a path works too. Same
 * return codes. */
int preset_load_gpu(const preset_catalog *c, const char *name, engine_gpu *out, char *err, size_t errlen);
/* Loads one model preset. Same return codes. */
int preset_load_model(const preset_catalog *c, const char *name, engine_model *out, char *err, size_t errlen);
/* Finds the model preset one of whose hf_names equals MODEL_PATH (also matching its last path
 * component, so "/models/Kimi-K3" matches "moonshotai/Kimi-K3"); NULL if none. */
const preset_entry *preset_match_hf_name(const preset_catalog *c, const char *model_path);

/* The user's preset directory: $CGPLAN_PRESETS, else $XDG_CONFIG_HOME/cgplan/presets, else
 * ~/.config/cgplan/presets ("" when there is none). */
void preset_user_dir(char *buf, size_t len);

/* Parses a size: an integer byte count, or a number with a unit (B, KiB, MiB, GiB, TiB; any
 * case; "22.5 GiB"), rounded to the nearest byte. Returns 0, or -1 (sign, unknown unit, a bare
 * fraction, overflow). */
int preset_parse_size(const char *text, uint64_t *out);

/* Writes S to F as a double-quoted YAML scalar that the loader reads back as S: '"' and '\\'
 * escaped, each control (C0, DEL, C1) and what YAML does not allow raw as an escape, invalid
 * UTF-8 as \uFFFD. Every writer of preset text uses it (model import, the planner's save). */
void preset_yaml_write_quoted(FILE *f, const char *s);
/* Writes S to F as the text of a "#" comment line: cleaned (text.h), so it cannot end the line. */
void preset_yaml_write_comment_text(FILE *f, const char *s);

#endif
