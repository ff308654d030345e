/* cmd_launch.c — `cgplan launch`: the SGLang flags and environment that realise the plan
 * (CLI.md). Every flag that decides graph memory is printed, so the plan is reproducible. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_launch(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "launch", OPT_PRESET | OPT_SET | OPT_DB, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("launch: unexpected argument '%s'", o.args[0]);
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment d;
    engine_warnings adj = {0};
    rc = cli_load_deployment(&o, cat, NULL, &d, &adj);
    preset_catalog_free(cat);
    if (rc)
        return rc;
    engine_calibration cal;
    bool calibrated = cli_find_calibration(&o, &d, &cal);
    static engine_estimate e;
    engine_estimate_compute(&d, calibrated ? &cal : NULL, &e);
    const engine_knobs_state *k = &d.knobs;

    printf("# cgplan launch: %s (%s on %u x %s)\n", d.name, d.model.name, k->world, d.gpu.name);
    printf("# predicted CUDA-graph memory %.2f GiB per GPU; KV pool %.2f GiB; headroom %.2f GiB\n",
           cli_gib(e.total_bytes), (double)e.budget.kv_pool_bytes / (double)ENGINE_GIB,
           (double)e.budget.headroom_bytes / (double)ENGINE_GIB);
    for (int i = 0; i < adj.n; i++)
        printf("# warning %s: %s\n", adj.items[i].code, adj.items[i].message);
    for (int i = 0; i < e.warnings.n; i++)
        printf("# warning %s: %s\n", e.warnings.items[i].code, e.warnings.items[i].message);
    if (d.a2a == A2A_DEEPEP) {
        /* max_dispatch is an environment variable, the only place SGLang reads it from. */
        printf("export %s=%u\n", engine_knobs[KNOB_MAX_DISPATCH].sglang_env, e.max_dispatch);
        const engine_warning *qp = engine_warning_find(&e.warnings, "qp_depth");
        if (qp)
            printf("export NVSHMEM_QP_DEPTH=%.0f\n", qp->value);
    }
    const char *model_path = d.model.n_hf_names ? d.model.hf_names[0] : d.model.name;
    /* HGX nodes hold 8 GPUs; a smaller world is one node. */
    uint32_t nnodes = k->world > 8 ? (k->world + 7) / 8 : 1;
    printf("python3 -m sglang.launch_server \\\n  --model-path %s \\\n", model_path);
    printf("  --tp %u --nnodes %u", k->world, nnodes);
    if (d.a2a == A2A_DEEPEP)
        printf(" --ep %u --moe-a2a-backend deepep", k->world);
    printf(" \\\n");
    if (k->dp > 1)
        printf("  --dp-size %u --enable-dp-attention \\\n", k->dp);
    if (k->dcp > 1)
        printf("  --dcp-size %u \\\n", k->dcp);
    printf("  --attention-backend %s \\\n", engine_backend_names[d.backend]);
    printf("  --cuda-graph-max-bs %u", k->max_bs);
    if (!k->buckets_auto) {
        printf(" --cuda-graph-bs");
        for (uint32_t i = 0; i < e.n_buckets; i++)
            printf(" %u", e.buckets[i]);
    }
    printf(" \\\n");
    if (k->mtp > 1)
        printf("  --speculative-algorithm EAGLE --speculative-num-steps %u --speculative-eagle-topk 1 "
               "--speculative-num-draft-tokens %u \\\n",
               k->mtp - 1, k->mtp);
    /* Under speculation SGLang defaults to 48 running requests and clamps the capture list to it. */
    printf("  --max-running-requests %u \\\n", k->dp * k->max_bs);
    printf("  --context-length %llu \\\n", (unsigned long long)k->context_len);
    double f = floor(e.budget.recommended_mem_fraction_static * 1000) / 1000;
    printf("  --mem-fraction-static %.3f\n", f);
    if (f < 0.5)
        printf("# the recommended fraction %.3f is implausibly low: the graphs do not fit on this GPU\n", f);
    return EXIT_OK;
}
