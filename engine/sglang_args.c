/* sglang_args.c — SGLang's launch flags read back into knobs (`--sglang-args`), through the knob
 * table's flags: what `cgplan launch` prints reads back to the same plan.
 *
 * Flags follow python/sglang/srt/server_args.py (ServerArgs.add_cli_args): a value flag takes
 * the next word (`--cuda-graph-bs` takes every number up to the next flag), a store_true flag
 * (--enable-dp-attention, --enable-two-batch-overlap) takes none; `--flag=value` works too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define ARGS_MAX 4096 /* bytes of flags one call reads: a launch line is far shorter */
#define WORDS_MAX 512


/* Older switches that set a knob to a fixed value (server_args.py deprecations). */
static const struct {
    const char *flag;
    engine_knob_id knob;
    const char *value;
} legacy_switches[] = {
    {"--enable-deepep-moe", KNOB_A2A, "deepep"}, /* before --moe-a2a-backend deepep */
};

/* Flags that take a value but do not change graph memory, so their value is skipped too. */
static bool takes_value(const char *flag)
{
    static const char *const with_value[] = {
        "--host", "--port", "--served-model-name", "--tokenizer-path", "--dist-init-addr", "--nnodes",
        "--node-rank", "--chunked-prefill-size", "--speculative-algorithm", "--speculative-eagle-topk",
        "--speculative-num-steps", "--speculative-draft-model-path", "--moe-dense-tp-size", "--log-level",
        "--schedule-policy", "--disaggregation-mode", "--quantization", "--load-format", "--dtype"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(flag, with_value[i]) == 0)
            return true;
    return false;
}

static const engine_knob_info *knob_of_flag(const char *flag)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[i];
        if ((k->sglang_flag && strcmp(k->sglang_flag, flag) == 0) ||
            (k->sglang_flag_alt && strcmp(k->sglang_flag_alt, flag) == 0))
            return k;
    }
    return NULL;
}

static const engine_knob_info *knob_of_env(const char *key, size_t len)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[i];
        if (k->sglang_env && strlen(k->sglang_env) == len && strncmp(k->sglang_env, key, len) == 0)
            return k;
    }
    return NULL;
}

static bool is_flag(const char *w) { return w[0] == '-' && w[1] == '-'; }

int engine_apply_sglang_args(engine_deployment *d, const char *args, char *model_path, size_t model_len,
                             int *skipped, engine_warnings *adj, char *err, size_t errlen)
{
    if (strlen(args) >= ARGS_MAX)
        return engine_fail(err, errlen, "--sglang-args: longer than %d bytes", ARGS_MAX - 1);
    char buf[ARGS_MAX];
    snprintf(buf, sizeof buf, "%s", args);
    char *words[WORDS_MAX];
    int n = 0;
    for (char *p = strtok(buf, " \t\n\\"); p; p = strtok(NULL, " \t\n\\")) {
        if (n == WORDS_MAX)
            return engine_fail(err, errlen, "--sglang-args: more than %d words", WORDS_MAX);
        words[n++] = p;
    }
    int skip = 0;
    bool spec = false, draft_tokens = false, dp_attention_given = false;
    for (int i = 0; i < n; i++)
        dp_attention_given |= strcmp(words[i], engine_knobs[KNOB_DP_ATTENTION].sglang_flag) == 0;
    long steps = 0;
    for (int i = 0; i < n; i++) {
        char *w = words[i];
        if (!is_flag(w)) {
            char *eq = strchr(w, '=');
            const engine_knob_info *k = eq ? knob_of_env(w, (size_t)(eq - w)) : NULL;
            if (k) { /* SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 */
                if (engine_knob_set_text(d, k->id, eq + 1, adj, err, errlen) != 0)
                    return -1;
                d->knob_origin[k->id] = ORIGIN_SET;
            } else if (strcmp(w, "python3") && strcmp(w, "python") && strcmp(w, "-m") && strcmp(w, "export") &&
                       strncmp(w, "sglang.", 7) != 0) {
                skip++;
            }
            continue;
        }
        char *value = strchr(w, '=');
        if (value)
            *value++ = '\0';
        if (strcmp(w, "--model-path") == 0 || strcmp(w, "--model") == 0) {
            const char *v = value ? value : i + 1 < n ? words[++i] : "";
            if (model_path)
                snprintf(model_path, model_len, "%s", v);
            continue;
        }
        if (strcmp(w, "--speculative-algorithm") == 0)
            spec = true;
        if (strcmp(w, "--speculative-num-steps") == 0 && (value || i + 1 < n))
            steps = strtol(value ? value : words[i + 1], NULL, 10);
        const engine_knob_info *k = knob_of_flag(w);
        for (size_t l = 0; !k && l < sizeof legacy_switches / sizeof legacy_switches[0]; l++)
            if (strcmp(w, legacy_switches[l].flag) == 0) {
                if (engine_knob_set_text(d, legacy_switches[l].knob, legacy_switches[l].value, adj, err, errlen))
                    return -1;
                d->knob_origin[legacy_switches[l].knob] = ORIGIN_SET;
                goto next;
            }
        if (!k) {
            if (!value && takes_value(w) && i + 1 < n)
                i++;
            skip++;
            continue;
        }
        if (k->type == KNOB_TYPE_BOOL && !value) { /* a store_true switch */
            if (engine_knob_set_text(d, k->id, "on", adj, err, errlen) != 0)
                return -1;
        } else if (k->field == KNOB_FIELD_LIST && !value) { /* numbers up to the next flag */
            char list[ARGS_MAX] = "";
            while (i + 1 < n && !is_flag(words[i + 1]))
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? "," : "", words[++i]);
            if (engine_knob_set_text(d, k->id, list, adj, err, errlen) != 0)
                return -1;
        } else {
            const char *v = value;
            if (!v) {
                if (i + 1 >= n)
                    return engine_fail(err, errlen, "--sglang-args: %s needs a value", w);
                v = words[++i];
            }
            if (engine_knob_set_text(d, k->id, v, adj, err, errlen) != 0)
                return -1;
        }
        if (k->id == KNOB_MTP)
            draft_tokens = true;
        /* --dp-size without --enable-dp-attention is dp replicas: the store_true flag defaults to
         * off (server_args.py ServerArgs.enable_dp_attention), where the knob's auto turns it on;
         * set at once, so a --dcp-size after it divides the replicas' tp. */
        if (k->id == KNOB_DP && !dp_attention_given && d->knobs.dp > 1) {
            if (engine_knob_set_text(d, KNOB_DP_ATTENTION, "off", adj, err, errlen) != 0)
                return -1;
            d->knob_origin[KNOB_DP_ATTENTION] = ORIGIN_RELEASE;
        }
        d->knob_origin[k->id] = ORIGIN_SET;
    next:;
    }
    /* With an algorithm but no draft tokens, SGLang picks them: topk 1 gives steps + 1
     * (speculative_hook._auto_choose_speculative_params: 3 steps for DeepSeek-like models). */
    if (spec && !draft_tokens) {
        char text[24];
        /* unsigned: strtol's LONG_MAX + 1 is a number the knob refuses, not an overflow */
        snprintf(text, sizeof text, "%llu", (unsigned long long)(steps > 0 ? steps : 3) + 1);
        if (engine_knob_set_text(d, KNOB_MTP, text, adj, err, errlen) != 0)
            return -1;
        d->knob_origin[KNOB_MTP] = ORIGIN_RELEASE;
    }
    if (skipped)
        *skipped = skip;
    return 0;
}
