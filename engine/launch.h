/* launch.h — the SGLang command that realises a plan, by the flag names of the release the plan
 * names (`sglang` knob), one command per node. Pure: text into caller-owned structs; the CLI's
 * `launch` and the TUI's launch overlay both print it. */
#ifndef CGPLAN_LAUNCH_H
#define CGPLAN_LAUNCH_H

#include "engine.h"

#define ENGINE_LAUNCH_MAX_ARGS 48
#define ENGINE_LAUNCH_MAX_NOTES 6
/* One flag with its value: a name of up to ENGINE_TEXT_MAX / 2 - 1 bytes shell-quoted (each '
 * as 5 bytes, two quotes) after the longest flag. */
#define ENGINE_LAUNCH_ARG_MAX (48 + 5 * (ENGINE_TEXT_MAX / 2) + 2)
/* The longest command engine_launch_command can write: every entry full, and the node flags. */
#define ENGINE_LAUNCH_COMMAND_MAX (4 * 96 + 64 + ENGINE_LAUNCH_MAX_ARGS * (ENGINE_LAUNCH_ARG_MAX + 4) + 128)
#define ENGINE_LAUNCH_GPUS_PER_NODE 8 /* HGX and GB200 NVL trays: 8 GPUs a node is the launch unit */

typedef struct {
    bool allow_patched;              /* print a combination the release rejects (e.g. DCP + MTP) */
    const char *disaggregation_mode; /* NULL or "decode": --disaggregation-mode */
    bool pin_kv;                     /* --max-total-tokens from the plan's KV pool (engine_launch_pinned_tokens) */
} engine_launch_opts;

typedef struct {
    double mem_fraction_static; /* the fraction the plan was computed at, and the one the command sets */
    uint32_t gpus;   /* the GPUs the command runs on: tp, times the dp replicas without DP attention */
    uint32_t nnodes;
    bool fits;     /* no blocking warning in the estimate */
    uint64_t max_total_tokens; /* --pin-kv: the --max-total-tokens written; 0: not pinned */
    bool rejected; /* the release refuses the combination (and allow_patched was not given) */
    bool patched;  /* the release refuses it, printed anyway on request */
    int n_refusals;
    char refusals[ENGINE_LAUNCH_MAX_NOTES][ENGINE_TEXT_MAX]; /* why launch refuses it, one sentence each */
    int n_env;
    char env[4][96]; /* NAME=VALUE */
    int n_args;
    /* one flag with its values per entry, each text in it one shell word; node flags excluded */
    char args[ENGINE_LAUNCH_MAX_ARGS][ENGINE_LAUNCH_ARG_MAX];
} engine_launch;

/* SGLang's --attention-backend choice for a resolved backend: FlashInfer's MLA backend is
 * "flashinfer" on an MLA model (server_args.py ATTENTION_BACKEND_CHOICES). */
const char *engine_launch_backend_name(engine_backend b);
/* What the release K names refuses in K's layout (a flag it lacks, a combination it rejects):
 * one sentence each into WHY (at most CAP; WHY may be NULL with CAP 0). Returns how many, so
 * search and launch hold the one rule. */
int engine_launch_release_refusals(const engine_knobs_state *k, char (*why)[ENGINE_TEXT_MAX], int cap);
/* --max-total-tokens for E's KV pool: the KV slots of one rank, as SGLang's max_total_num_tokens
 * counts them (per ModelRunner, so per DP rank; before DCP's x dcp), on a page boundary. 0 when
 * the plan has no pool. */
uint64_t engine_launch_pinned_tokens(const engine_deployment *d, const engine_estimate *e);
/* Builds the launch for D as estimated in E (engine_estimate_compute at D's own fraction). */
void engine_launch_build(const engine_deployment *d, const engine_estimate *e, const engine_launch_opts *o,
                         engine_launch *out);
/* The shell text of node NODE's command (with --node-rank and the --dist-init-addr placeholder
 * when nnodes > 1), "\\\n  " between flags; truncated to LEN. Returns the length it needed. */
size_t engine_launch_command(const engine_launch *l, uint32_t node, char *buf, size_t len);

#endif
