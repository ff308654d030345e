/* cmd_presets.c — `cgplan presets`: what presets exist, with model, GPU and layout. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"

static const char *const kind_names[] = {"model", "gpu", "deployment"};

int cmd_presets(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "presets", OPT_FORMAT, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("presets: unexpected argument '%s'", o.args[0]);
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    size_t n = preset_catalog_count(cat);
    jsonw w;
    if (o.format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "presets");
        jsonw_array_begin(&w);
    } else if (o.format == FORMAT_CSV) {
        printf("name,kind,model,gpu,world,dp,dcp,max_bs,mtp,origin\n");
    }
    /* deployments first: they are what --preset takes */
    for (int pass = PRESET_DEPLOYMENT; pass >= PRESET_MODEL; pass--) {
        bool header = false;
        for (size_t i = 0; i < n; i++) {
            const preset_entry *p = preset_catalog_get(cat, i);
            if ((int)p->kind != pass)
                continue;
            if (o.format == FORMAT_JSON) {
                jsonw_object_begin(&w);
                jsonw_kstring(&w, "name", p->name);
                jsonw_kstring(&w, "kind", kind_names[p->kind]);
                jsonw_kstring(&w, "description", p->description);
                jsonw_kstring(&w, "origin", p->origin);
                if (p->kind == PRESET_DEPLOYMENT) {
                    jsonw_kstring(&w, "model", p->model);
                    jsonw_kstring(&w, "gpu", p->gpu);
                    jsonw_ku64(&w, "world", p->world);
                    jsonw_ku64(&w, "dp", p->dp);
                    jsonw_ku64(&w, "dcp", p->dcp);
                    jsonw_ku64(&w, "max_bs", p->max_bs);
                    jsonw_ku64(&w, "mtp", p->mtp);
                }
                jsonw_object_end(&w);
            } else if (o.format == FORMAT_CSV) {
                if (p->kind == PRESET_DEPLOYMENT)
                    cli_shown_line("%s,%s,%s,%s,%u,%u,%u,%u,%u,%s\n", p->name, kind_names[p->kind], p->model, p->gpu,
                                   p->world, p->dp, p->dcp, p->max_bs, p->mtp, p->origin);
                else
                    cli_shown_line("%s,%s,,,,,,,,%s\n", p->name, kind_names[p->kind], p->origin);
            } else {
                if (!header) {
                    printf("%s%ss\n", pass == PRESET_DEPLOYMENT ? "" : "\n", kind_names[pass]);
                    header = true;
                }
                if (p->kind == PRESET_DEPLOYMENT) {
                    char layout[48];
                    snprintf(layout, sizeof layout, "%u GPUs DP%u%s", p->world, p->dp, "");
                    if (p->dcp > 1)
                        snprintf(layout, sizeof layout, "%u GPUs DP%u x DCP%u", p->world, p->dp, p->dcp);
                    cli_shown_line("  %-16s %-12s %-7s %-22s max_bs %-4u mtp %-2u  %s\n", p->name, p->model, p->gpu,
                                   layout, p->max_bs, p->mtp, p->description);
                } else {
                    cli_shown_line("  %-16s %s%s%s\n", p->name, p->description,
                                   strncmp(p->origin, "builtin:", 8) ? "  [" : "",
                                   strncmp(p->origin, "builtin:", 8) ? p->origin : "");
                }
            }
        }
    }
    if (o.format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
    }
    size_t problems = preset_catalog_problem_count(cat);
    for (size_t i = 0; i < problems; i++)
        cli_error("%s", preset_catalog_problem(cat, i));
    preset_catalog_free(cat);
    return problems ? EXIT_WORK : EXIT_OK;
}
