/* test_preset.c — the YAML loader and the catalog: the built-in presets carry the article's
 * numbers, every error names file:line:column and the offending thing, user files override
 * built-ins and a broken one hides nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preset.h"
#include "preset_yaml.h" /* the nesting scan, tested on its own */
#include "weights.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

/* ---- Per-test fixture: an empty user preset directory (so the tester's own ~/.config does not
 * leak in), and beside it a directory for files loaded by path. ---- */

typedef struct {
    char dir[256];   /* $CGPLAN_PRESETS */
    char files[300]; /* files loaded by path; not scanned (a subdirectory) */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/cgplan-test-preset-XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->files, sizeof f->files, "%s/files", f->dir);
    if (mkdir(f->files, 0700) != 0 || setenv("CGPLAN_PRESETS", f->dir, 1) != 0) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_dir(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_dir(f->dir);
    unsetenv("CGPLAN_PRESETS");
    free(f);
    return 0;
}

static void write_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static const char *builtin_text(const char *file_name)
{
    for (const preset_builtin_file *b = preset_builtin_files; b->file_name; b++)
        if (strcmp(b->file_name, file_name) == 0)
            return b->text;
    fail_msg("no built-in %s", file_name);
    return NULL;
}

/* ERR must start with "PATH:LINE:COL: " and mention each of the NULL-terminated needles. */
static void assert_located(const char *err, const char *path, int line, int col, ...)
{
    char where[400];
    snprintf(where, sizeof where, "%s:%d:%d: ", path, line, col);
    if (strncmp(err, where, strlen(where)) != 0)
        fail_msg("expected '%s' at the start of: %s", where, err);
    if (strchr(err, '\n'))
        fail_msg("not one line: %s", err);
    va_list ap;
    va_start(ap, col);
    for (const char *needle; (needle = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err, needle))
            fail_msg("expected '%s' in: %s", needle, err);
    va_end(ap);
}

/* ---- The built-in presets. ---- */

static void test_k3_dp16(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    engine_deployment d;
    char err[512] = "";
    assert_int_equal(preset_load_deployment(c, "k3-dp16", &d, err, sizeof err), 0);
    assert_string_equal(d.name, "k3-dp16");
    assert_string_equal(d.model.name, "kimi-k3");
    assert_int_equal(d.model.vocab, 163840);
    assert_int_equal(d.model.hidden, 7168);
    assert_int_equal(d.model.layers, 93);
    assert_int_equal(d.model.num_experts, 896);
    assert_int_equal(d.model.dispatch_hidden, 3584);
    assert_int_equal(d.model.moe_intermediate, 3072);
    assert_int_equal(d.model.top_k, 16);
    assert_int_equal(d.model.heads, 96);
    assert_int_equal(d.model.full_attn_layers, 24);
    assert_int_equal(d.model.kv_lora_rank, 512);
    assert_int_equal(d.model.qk_rope_dim, 64);
    assert_int_equal(d.model.attn_kind, ATTN_MLA);
    assert_int_equal(d.model.draft_layers, 1);
    assert_int_equal(d.model.n_hf_names, 3);
    assert_string_equal(d.model.hf_names[0], "moonshotai/Kimi-K3");

    assert_string_equal(d.gpu.name, "b200");
    assert_int_equal(d.gpu.cuda_total_bytes, (uint64_t)llround(178.35 * (double)GIB));
    assert_int_equal(d.gpu.nvidia_smi_mib, 183359);
    assert_true(d.gpu.ue8m0_scales);

    assert_int_equal(d.knobs.world, 16);
    assert_int_equal(d.knobs.dp, 16);
    assert_int_equal(d.knobs.dcp, 1);
    assert_int_equal(d.knobs.max_bs, 24);
    assert_int_equal(d.knobs.mtp, 6);
    assert_true(d.knobs.max_dispatch_auto);
    assert_false(d.knobs.buckets_auto);
    static const uint32_t buckets[] = {1, 2, 4, 8, 16, 24};
    assert_int_equal(d.knobs.n_buckets, 6);
    assert_memory_equal(d.knobs.buckets, buckets, sizeof buckets);
    assert_int_equal(d.knobs.context_len, 1048576);
    assert_float_equal(d.knobs.mem_fraction_static, 0.92, 1e-9);
    assert_int_equal(d.backend, BACKEND_FLASHINFER_MLA);
    assert_int_equal(d.a2a, A2A_DEEPEP);
    assert_int_equal(d.weights_bytes, 150 * GIB);
    assert_int_equal(d.state_pool_bytes, 8 * GIB);
    assert_int_equal(d.other_runtime_bytes, GIB);
    assert_int_equal(d.pre_load_free_bytes, 0);
    assert_int_equal(d.margin_bytes, 5 * GIB); /* the margin knob's default: SGLang's 5-8 GB available_gpu_mem */

    uint64_t k3[COEF_COUNT];
    engine_k3_default_coefficients(k3);
    assert_memory_equal(d.model.coef, k3, sizeof k3);
    assert_int_equal(d.model.coef[COEF_ACT_BYTES_PER_ROW], 4884109);
    assert_false(d.model.coef_borrowed);
    preset_catalog_free(c);
}

static void test_k3_dp2_dcp8(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    engine_deployment d;
    char err[512] = "";
    assert_int_equal(preset_load_deployment(c, "k3-dp2-dcp8", &d, err, sizeof err), 0);
    assert_int_equal(d.knobs.world, 16);
    assert_int_equal(d.knobs.dp, 2);
    assert_int_equal(d.knobs.dcp, 8);
    assert_int_equal(d.knobs.max_bs, 192);
    assert_int_equal(d.knobs.mtp, 5);
    assert_false(d.knobs.max_dispatch_auto);
    assert_int_equal(d.knobs.max_dispatch, 128);
    assert_false(d.knobs.buckets_auto);
    assert_int_equal(d.knobs.n_buckets, 23);
    for (uint32_t i = 0; i < 23; i++)
        assert_int_equal(d.knobs.buckets[i], 16 + 8 * i);
    assert_float_equal(d.knobs.mem_fraction_static, 0.874, 1e-9);
    assert_int_equal(d.weights_bytes, 98 * GIB);
    assert_int_equal(d.state_pool_bytes, 22 * GIB + GIB / 2);
    assert_false(d.model.coef_borrowed);
    preset_catalog_free(c);
}

static void test_dsv3_has_no_borrowed_coefficients(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    engine_deployment d;
    char err[512] = "";
    assert_int_equal(preset_load_deployment(c, "dsv3-h200-dp16", &d, err, sizeof err), 0);
    assert_string_equal(d.model.name, "deepseek-v3");
    assert_string_equal(d.gpu.name, "h200");
    assert_true(d.model.coef_borrowed);
    /* No coefficients of its own: each is missing (unknown), none is K3's. */
    for (int i = 0; i < COEF_COUNT; i++) {
        assert_true(d.model.coef_missing[i]);
        assert_int_equal(d.model.coef[i], 0);
    }
    assert_int_equal(d.backend, BACKEND_FLASHMLA);
    assert_true(d.knobs.buckets_auto);
    assert_int_equal(d.knobs.max_dispatch, 128);
    assert_int_equal(d.state_pool_bytes, 0);
    assert_int_equal(d.gpu.cuda_total_bytes, (uint64_t)llround(139.80 * (double)GIB));
    assert_false(d.gpu.ue8m0_scales);

    engine_model m;
    assert_int_equal(preset_load_model(c, "deepseek-v3", &m, err, sizeof err), 0);
    assert_true(m.coef_borrowed);
    assert_int_equal(m.num_experts, 256);
    assert_int_equal(m.dispatch_hidden, 7168);
    preset_catalog_free(c);
}

/* The built-in GPUs: what SGLang's platform checks call each (B300 and GB300 are SM103, which
 * is_sm100_supported() takes too) and how its GPUs are joined. A GPU preset added to presets/
 * needs its row here. SMI_UNKNOWN: no nvidia-smi / rocm-smi total in the preset (GB10's nvidia-smi
 * reports none; the two AMD figures were not found). */
enum { SMI_KNOWN, SMI_UNKNOWN };
static const struct {
    const char *name;
    engine_gpu_arch arch;
    engine_gpu_link link;
    int smi;
} builtin_gpus[] = {
    {"a10", GPU_ARCH_SM86, GPU_LINK_PCIE, SMI_KNOWN},
    {"a100-40gb", GPU_ARCH_SM80, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"a100-80gb", GPU_ARCH_SM80, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"a30", GPU_ARCH_SM80, GPU_LINK_PCIE, SMI_KNOWN},
    {"b200", GPU_ARCH_SM100, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"b300", GPU_ARCH_SM103, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"gb10", GPU_ARCH_SM121, GPU_LINK_UNIFIED, SMI_UNKNOWN},
    {"gb200", GPU_ARCH_SM100, GPU_LINK_MNNVL, SMI_KNOWN},
    {"gb300", GPU_ARCH_SM103, GPU_LINK_MNNVL, SMI_KNOWN},
    {"gh200", GPU_ARCH_SM90, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"h100", GPU_ARCH_SM90, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"h100-nvl", GPU_ARCH_SM90, GPU_LINK_NVLINK_BRIDGE, SMI_KNOWN},
    {"h100-pcie", GPU_ARCH_SM90, GPU_LINK_PCIE, SMI_KNOWN},
    {"h20", GPU_ARCH_SM90, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"h800", GPU_ARCH_SM90, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"h200", GPU_ARCH_SM90, GPU_LINK_NVSWITCH, SMI_KNOWN},
    {"h200-nvl", GPU_ARCH_SM90, GPU_LINK_NVLINK_BRIDGE, SMI_KNOWN},
    {"l4", GPU_ARCH_SM89, GPU_LINK_PCIE, SMI_KNOWN},
    {"l40s", GPU_ARCH_SM89, GPU_LINK_PCIE, SMI_KNOWN},
    {"mi250x", GPU_ARCH_CDNA2, GPU_LINK_XGMI, SMI_KNOWN},
    {"mi300x", GPU_ARCH_CDNA3, GPU_LINK_XGMI, SMI_KNOWN},
    {"mi325x", GPU_ARCH_CDNA3, GPU_LINK_XGMI, SMI_UNKNOWN},
    {"mi355x", GPU_ARCH_CDNA4, GPU_LINK_XGMI, SMI_UNKNOWN},
    {"rtx-pro-6000", GPU_ARCH_SM120, GPU_LINK_PCIE, SMI_KNOWN},
    {"rtx3090", GPU_ARCH_SM86, GPU_LINK_PCIE, SMI_KNOWN},
    {"rtx4080-16gb", GPU_ARCH_SM89, GPU_LINK_PCIE, SMI_KNOWN},
    {"rtx4090", GPU_ARCH_SM89, GPU_LINK_PCIE, SMI_KNOWN},
    {"rtx5090", GPU_ARCH_SM120, GPU_LINK_PCIE, SMI_KNOWN},
    {"rtx6000-ada", GPU_ARCH_SM89, GPU_LINK_PCIE, SMI_KNOWN},
    {"t4", GPU_ARCH_SM75, GPU_LINK_PCIE, SMI_KNOWN},
};
#define BUILTIN_GPU_COUNT (sizeof builtin_gpus / sizeof builtin_gpus[0])

static bool is_amd(engine_gpu_arch arch)
{
    return arch == GPU_ARCH_CDNA2 || arch == GPU_ARCH_CDNA3 || arch == GPU_ARCH_CDNA4 || arch == GPU_ARCH_RDNA4;
}

/* Every built-in GPU loads, with its row's arch and link, UE8M0 scales exactly on SM100/SM103
 * (DeepGEMM's DEEPGEMM_SCALE_UE8M0 is is_sm100_supported), and a CUDA total under nvidia-smi's: the
 * driver keeps some memory nvidia-smi counts. On AMD, amdgpu gives rocm-smi and HIP one VRAM size. */
static void test_builtin_gpus(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    size_t seen = 0;
    for (size_t i = 0; i < preset_catalog_count(c); i++) {
        const preset_entry *e = preset_catalog_get(c, i);
        if (e->kind != PRESET_GPU)
            continue;
        size_t row = 0;
        while (row < BUILTIN_GPU_COUNT && strcmp(builtin_gpus[row].name, e->name) != 0)
            row++;
        if (row == BUILTIN_GPU_COUNT)
            fail_msg("%s: a built-in GPU without a row in builtin_gpus", e->name);
        seen++;
        engine_gpu g;
        char err[512] = "";
        if (preset_load_gpu(c, e->name, &g, err, sizeof err) != 0)
            fail_msg("%s: %s", e->name, err);
        assert_string_equal(g.name, e->name);
        if (g.arch != builtin_gpus[row].arch || g.link != builtin_gpus[row].link)
            fail_msg("%s: arch %s link %s, want %s %s", e->name, engine_gpu_arch_names[g.arch],
                     engine_gpu_link_names[g.link], engine_gpu_arch_names[builtin_gpus[row].arch],
                     engine_gpu_link_names[builtin_gpus[row].link]);
        if (g.ue8m0_scales != (g.arch == GPU_ARCH_SM100 || g.arch == GPU_ARCH_SM103))
            fail_msg("%s: ue8m0_scales %d on %s", e->name, g.ue8m0_scales, engine_gpu_arch_names[g.arch]);
        if (g.cuda_total_bytes < 8 * GIB || g.cuda_total_bytes > 512 * GIB)
            fail_msg("%s: cuda_total_bytes %.2f GiB", e->name, (double)g.cuda_total_bytes / (double)GIB);
        if ((g.nvidia_smi_mib == 0) != (builtin_gpus[row].smi == SMI_UNKNOWN))
            fail_msg("%s: nvidia_smi_mib %u", e->name, g.nvidia_smi_mib);
        uint64_t smi_bytes = (uint64_t)g.nvidia_smi_mib * MIB;
        if (g.nvidia_smi_mib && (is_amd(g.arch) ? g.cuda_total_bytes > smi_bytes : g.cuda_total_bytes >= smi_bytes))
            fail_msg("%s: CUDA total %.2f GiB not under nvidia-smi's %u MiB", e->name,
                     (double)g.cuda_total_bytes / (double)GIB, g.nvidia_smi_mib);
    }
    assert_int_equal(seen, BUILTIN_GPU_COUNT);
    preset_catalog_free(c);
}

static void test_catalog_lists_builtins(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    assert_int_equal(preset_catalog_problem_count(c), 0);
    size_t kinds[3] = {0};
    for (size_t i = 0; i < preset_catalog_count(c); i++)
        kinds[preset_catalog_get(c, i)->kind]++;
    assert_int_equal(kinds[PRESET_GPU], BUILTIN_GPU_COUNT); /* test_builtin_gpus checks each */
    assert_true(kinds[PRESET_MODEL] >= 78); /* the catalog: each model's source tested in test_model_catalog.sh */
    assert_int_equal(kinds[PRESET_DEPLOYMENT], 3);
    assert_null(preset_catalog_get(c, preset_catalog_count(c)));
    assert_non_null(preset_catalog_find(c, "kimi-k3", PRESET_MODEL));
    assert_non_null(preset_catalog_find(c, "kimi-k2", PRESET_MODEL));
    assert_non_null(preset_catalog_find(c, "deepseek-v3", PRESET_MODEL));
    assert_null(preset_catalog_find(c, "kimi-k3", PRESET_GPU)); /* the kind must match */

    const preset_entry *e = preset_catalog_find(c, "k3-dp2-dcp8", PRESET_DEPLOYMENT);
    assert_non_null(e);
    assert_string_equal(e->origin, "builtin:k3-dp2-dcp8.yaml");
    assert_string_equal(e->model, "kimi-k3");
    assert_string_equal(e->gpu, "b200");
    assert_int_equal(e->world, 16);
    assert_int_equal(e->dp, 2);
    assert_int_equal(e->dcp, 8);
    assert_int_equal(e->mtp, 5);
    assert_int_equal(e->max_bs, 192);
    assert_non_null(strstr(e->description, "DP2 x DCP8"));
    assert_non_null(preset_catalog_find(c, "dsv3-h200-dp16", PRESET_DEPLOYMENT));
    e = preset_catalog_find(c, "kimi-k3", PRESET_MODEL);
    assert_string_equal(e->model, "");
    preset_catalog_free(c);
}

static void test_match_hf_name(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    const preset_entry *e = preset_match_hf_name(c, "moonshotai/Kimi-K3");
    assert_non_null(e);
    assert_string_equal(e->name, "kimi-k3");
    e = preset_match_hf_name(c, "/models/kimi-k3/");
    assert_non_null(e);
    assert_string_equal(e->name, "kimi-k3");
    e = preset_match_hf_name(c, "DEEPSEEK-AI/DeepSeek-R1-0528");
    assert_non_null(e);
    assert_string_equal(e->name, "deepseek-v3");
    e = preset_match_hf_name(c, "/data/Kimi-K2-Thinking"); /* its own preset: INT4 experts, 256K context */
    assert_non_null(e);
    assert_string_equal(e->name, "kimi-k2-thinking");
    assert_null(preset_match_hf_name(c, "mistralai/Mistral-7B-v0.1")); /* no preset has it */
    assert_null(preset_match_hf_name(c, "Kimi")); /* whole components only */
    assert_null(preset_match_hf_name(c, ""));
    preset_catalog_free(c);
}

/* ---- Errors. ---- */

static const char *const good_deployment = "# a comment line\n"
                                           "kind: deployment\n"
                                           "name: NAME\n"
                                           "model: kimi-k3\n"
                                           "gpu: b200\n"
                                           "world: 16\n"
                                           "dp: 2\n"
                                           "dcp: 8\n"
                                           "max_bs: 24\n"
                                           "weights_bytes: 98 GiB\n";

/* Writes TEXT (with NAME in place of the placeholder "NAME") to files/NAME.yaml, loads it as a
 * deployment by path and returns the code; PATH receives the file's path. */
static int load_deployment_text(const fixture *f, const preset_catalog *c, const char *name, const char *text,
                                char *path, size_t pathlen, engine_deployment *d, char *err, size_t errlen)
{
    char body[2048], file[128];
    const char *hole = strstr(text, "NAME");
    if (hole)
        snprintf(body, sizeof body, "%.*s%s%s", (int)(hole - text), text, name, hole + 4);
    else
        snprintf(body, sizeof body, "%s", text);
    snprintf(file, sizeof file, "%s.yaml", name);
    write_file(f->files, file, body, path, pathlen);
    err[0] = '\0';
    return preset_load_deployment(c, path, d, err, errlen);
}

static void test_good_deployment_by_path(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024];
    engine_deployment d;
    assert_int_equal(load_deployment_text(f, c, "ok", good_deployment, path, sizeof path, &d, err, sizeof err), 0);
    assert_string_equal(d.name, "ok");
    assert_int_equal(d.knobs.dp, 2);
    assert_int_equal(d.knobs.dcp, 8);
    /* What the file omits: the model's context_len, the engine's defaults. */
    assert_int_equal(d.knobs.context_len, 1048576);
    assert_int_equal(d.knobs.mtp, 1);
    assert_true(d.knobs.buckets_auto);
    assert_int_equal(d.state_pool_bytes, 0);
    assert_int_equal(d.other_runtime_bytes, GIB);
    preset_catalog_free(c);
}

static void test_error_malformed_yaml(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024];
    engine_deployment d;
    /* A tab where an indentation is due. */
    int rc = load_deployment_text(f, c, "indent", "kind: deployment\nname: indent\ncoefficients:\n\tlazy_bytes: 1\n",
                                  path, sizeof path, &d, err, sizeof err);
    assert_int_equal(rc, 1);
    assert_located(err, path, 4, 1, "malformed YAML", "not a tab", NULL);
    /* An unclosed flow list: libyaml notices on the next line. */
    rc = load_deployment_text(f, c, "bracket", "kind: deployment\nname: bracket\nbuckets: [1, 2\nmax_bs: 4\n", path,
                              sizeof path, &d, err, sizeof err);
    assert_int_equal(rc, 1);
    assert_located(err, path, 4, 7, "malformed YAML", "did not find expected ',' or ']'", "line 3, column 10", NULL);
    /* Not UTF-8: the reader reports a byte offset, turned into a line and column. */
    rc =
        load_deployment_text(f, c, "binary", "kind: deployment\nname: b\xff\n", path, sizeof path, &d, err, sizeof err);
    assert_int_equal(rc, 1);
    assert_located(err, path, 2, 8, "malformed YAML", "UTF-8", NULL);
    preset_catalog_free(c);
}

static void test_error_unknown_key(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[1024];
    engine_deployment d;
    snprintf(text, sizeof text, "%smax_bss: 24\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "typo", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 11, 1, "unknown key 'max_bss'", "max_bs", "mem_fraction_static", "weights_bytes", NULL);
    /* Inside a nested mapping the list is that mapping's keys. */
    snprintf(text, sizeof text, "%scoefficients:\n  lazy: 1 GiB\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "nested", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 12, 3, "unknown key 'lazy'", "coefficients", "lazy_bytes", NULL);
    /* A key given twice. */
    snprintf(text, sizeof text, "%sdp: 4\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "twice", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 11, 1, "'dp' appears twice", "line 7", NULL);
    preset_catalog_free(c);
}

static void test_error_wrong_type(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[8192];
    snprintf(text, sizeof text, "%s", builtin_text("kimi-k3.yaml"));
    char *vocab = strstr(text, "vocab: 163840");
    assert_non_null(vocab);
    memcpy(vocab, "vocab: abc   ", 13);
    int line = 1;
    for (const char *q = text; q < vocab; q++)
        line += *q == '\n';
    write_file(f->files, "kimi-k3.yaml", text, path, sizeof path);
    engine_model m;
    assert_int_equal(preset_load_model(c, path, &m, err, sizeof err), 1);
    assert_located(err, path, line, 8, "vocab", "'abc'", "expected an integer", NULL);

    /* A size that is not one. */
    engine_deployment d;
    char *weights = strstr(strcpy(text, good_deployment), "98 GiB");
    memcpy(weights, "98 GB\n", 7);
    assert_int_equal(load_deployment_text(f, c, "size", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 10, 16, "weights_bytes", "'98 GB'", "GiB", NULL);
    /* A kind that is not one of the three. */
    char other[600];
    snprintf(other, sizeof other, "%s/model.yaml", f->files);
    write_file(f->files, "model.yaml", "kind: modell\nname: model\n", other, sizeof other);
    assert_int_equal(preset_load_model(c, other, &m, err, sizeof err), 1);
    assert_located(err, other, 1, 7, "'modell'", "model, gpu, deployment", NULL);
    preset_catalog_free(c);
}

static void test_error_knob_out_of_range(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[1024];
    engine_deployment d;
    snprintf(text, sizeof text, "%s", good_deployment);
    memcpy(strstr(text, "dcp: 8"), "dcp: 3", 6);
    assert_int_equal(load_deployment_text(f, c, "dcp3", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 8, 6, "dcp=3", "attn_tp 8", NULL);

    snprintf(text, sizeof text, "%s", good_deployment);
    memcpy(strstr(text, "max_bs: 24"), "max_bs: -1", 10);
    assert_int_equal(load_deployment_text(f, c, "bs", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 9, 9, "max_bs=-1", "1..1024", NULL);

    /* A bucket is checked where it stands in the list. */
    snprintf(text, sizeof text, "%sbuckets: [8, 16, 2000]\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "bucket", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 11, 18, "2000", "1..1024", NULL);

    /* A value holding a newline is echoed escaped: the message stays one line. */
    snprintf(text, sizeof text, "%smtp: \"2\\n4\"\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "newline", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 11, 6, "mtp=2\\n4", NULL);

    snprintf(text, sizeof text, "%smem_fraction_static: 1.5\n", good_deployment);
    assert_int_equal(load_deployment_text(f, c, "frac", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 11, 22, "mem_fraction_static", "0.50..0.99", NULL);
    preset_catalog_free(c);
}

static void test_error_unknown_model_or_gpu(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[1024];
    engine_deployment d;
    snprintf(text, sizeof text, "%s", good_deployment);
    memcpy(strstr(text, "model: kimi-k3"), "model: nope   ", 14);
    assert_int_equal(load_deployment_text(f, c, "nomodel", text, path, sizeof path, &d, err, sizeof err), 1);
    /* the list runs out of room past 500 characters: the rest counted, and where to see them */
    assert_located(err, path, 4, 8, "'nope'", "deepseek-v3", "more (cgplan presets lists them)", NULL);
    assert_null(strstr(err, "b200")); /* lists models only */

    snprintf(text, sizeof text, "%s", good_deployment);
    memcpy(strstr(text, "gpu: b200"), "gpu: z900", 9);
    assert_int_equal(load_deployment_text(f, c, "nogpu", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 5, 6, "'z900'", "h100", "mi355x", NULL);
    preset_catalog_free(c);
}

static void test_error_missing_key_and_name(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[1024];
    engine_deployment d;
    snprintf(text, sizeof text, "%s", good_deployment);
    *strstr(text, "weights_bytes") = '\0';
    /* Located at the mapping's start: line 2, after the comment. */
    assert_int_equal(load_deployment_text(f, c, "noweights", text, path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 2, 1, "'weights_bytes'", NULL);

    /* name: must be the file's stem. */
    assert_int_equal(
        load_deployment_text(f, c, "stem", "kind: deployment\nname: other\n", path, sizeof path, &d, err, sizeof err),
        1);
    assert_located(err, path, 2, 7, "'other'", "name: stem", NULL);

    /* A kind that is not one of the three. */
    assert_int_equal(load_deployment_text(f, c, "kindless", "kind: cluster\nname: kindless\n", path, sizeof path, &d,
                                          err, sizeof err),
                     1);
    assert_located(err, path, 1, 7, "'cluster'", "model, gpu, deployment", NULL);

    /* A GPU file loaded where a deployment is expected. */
    assert_int_equal(
        load_deployment_text(f, c, "h100", builtin_text("h100.yaml"), path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 2, 7, "gpu", "deployment", NULL);

    /* An empty file, a missing file. */
    assert_int_equal(load_deployment_text(f, c, "empty", "# nothing\n", path, sizeof path, &d, err, sizeof err), 1);
    assert_located(err, path, 1, 1, "empty", NULL);
    snprintf(path, sizeof path, "%s/absent.yaml", f->files);
    assert_int_equal(preset_load_deployment(c, path, &d, err, sizeof err), 1);
    assert_located(err, path, 1, 1, "cannot open", NULL);
    preset_catalog_free(c);
}

static void test_error_no_such_preset(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char err[1024] = "";
    engine_deployment d;
    assert_int_equal(preset_load_deployment(c, "k3-dp32", &d, err, sizeof err), 2);
    assert_non_null(strstr(err, "'k3-dp32'"));
    assert_non_null(strstr(err, "k3-dp16"));
    assert_non_null(strstr(err, "k3-dp2-dcp8"));
    assert_non_null(strstr(err, "dsv3-h200-dp16"));
    assert_null(strstr(err, "kimi-k3")); /* deployments only */
    /* A preset of another kind is not a deployment, and says what it is. */
    assert_int_equal(preset_load_deployment(c, "b200", &d, err, sizeof err), 2);
    assert_non_null(strstr(err, "gpu preset"));
    engine_gpu g;
    assert_int_equal(preset_load_gpu(c, "a100", &g, err, sizeof err), 2);
    assert_non_null(strstr(err, "h200"));
    engine_model m;
    assert_int_equal(preset_load_model(c, "llama", &m, err, sizeof err), 2);
    assert_non_null(strstr(err, "deepseek-v3")); /* the first names, then how many more */
    assert_non_null(strstr(err, "more (cgplan presets lists them)"));
    preset_catalog_free(c);
}

/* ---- User presets. ---- */

static void test_user_override_and_broken_file(void **state)
{
    fixture *f = *state;
    char text[4096], path[512], broken[512], b300[512], err[1024] = "";
    snprintf(text, sizeof text, "%s", builtin_text("k3-dp16.yaml"));
    char *bs = strstr(text, "max_bs: 24");
    assert_non_null(bs);
    memcpy(bs, "max_bs: 48", 10);
    write_file(f->dir, "k3-dp16.yaml", text, path, sizeof path);
    write_file(f->dir, "broken.yaml", "kind: gpu\nname: broken\ncuda_total_bytes: [1\n", broken, sizeof broken);
    write_file(f->dir, "b300.yaml", "kind: gpu\nname: b300\ncuda_total_bytes: lots\nue8m0_scales: true\n", b300,
               sizeof b300);
    write_file(f->dir, "notes.txt", "not a preset", text, sizeof text); /* ignored */

    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    const preset_entry *e = preset_catalog_find(c, "k3-dp16", PRESET_DEPLOYMENT);
    assert_non_null(e);
    assert_string_equal(e->origin, path);
    assert_int_equal(e->max_bs, 48);

    /* Two problems, each a located one-line message; the built-ins are all still there. */
    assert_int_equal(preset_catalog_problem_count(c), 2);
    bool saw_broken = false, saw_b300 = false;
    for (size_t i = 0; i < 2; i++) {
        const char *p = preset_catalog_problem(c, i);
        saw_broken |= strncmp(p, broken, strlen(broken)) == 0;
        saw_b300 |= strncmp(p, b300, strlen(b300)) == 0;
    }
    assert_true(saw_broken && saw_b300);
    assert_null(preset_catalog_problem(c, 2));
    size_t builtins = 0;
    while (preset_builtin_files[builtins].file_name)
        builtins++;
    assert_int_equal(preset_catalog_count(c), builtins - 1); /* the built-ins less b300 */

    engine_deployment d;
    assert_int_equal(preset_load_deployment(c, "k3-dp16", &d, err, sizeof err), 0);
    assert_int_equal(d.knobs.max_bs, 48);
    assert_int_equal(d.knobs.dp, 16);
    assert_int_equal(preset_load_deployment(c, "k3-dp2-dcp8", &d, err, sizeof err), 0);
    assert_int_equal(d.knobs.max_bs, 192);

    /* Loading a broken preset by name gives its own message. */
    engine_gpu g;
    assert_int_equal(preset_load_gpu(c, "broken", &g, err, sizeof err), 1);
    assert_located(err, broken, 4, 1, "malformed YAML", NULL);
    /* A broken user file hides the built-in of its name instead of silently falling back. */
    assert_int_equal(preset_load_gpu(c, "b300", &g, err, sizeof err), 1);
    assert_located(err, b300, 3, 19, "cuda_total_bytes", "'lots'", NULL);
    assert_null(preset_catalog_find(c, "b300", PRESET_GPU));
    assert_int_equal(preset_load_gpu(c, "b200", &g, err, sizeof err), 0);
    preset_catalog_free(c);
}

/* arch: is required (nothing else tells Hopper from Blackwell from AMD for the default attention
 * backend) and one of its names; an older preset's "other" reads as sm80. link: is optional, its
 * default set by the arch. */
static void test_gpu_arch(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024] = "";
    engine_gpu g;
    write_file(f->files, "h20.yaml",
               "kind: gpu\nname: h20\ncuda_total_bytes: 95 GiB\nue8m0_scales: false\narch: sm90\n", path, sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 0);
    assert_int_equal(g.arch, GPU_ARCH_SM90);
    assert_int_equal(g.link, GPU_LINK_NVSWITCH);
    write_file(f->files, "a100.yaml", "kind: gpu\nname: a100\ncuda_total_bytes: 79 GiB\nue8m0_scales: false\n", path,
               sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 1);
    assert_located(err, path, 1, 1, "'arch'", "sm75", "sm90", "sm103", "sm121", "cdna2", "rdna4", NULL);
    write_file(f->files, "l4.yaml", "kind: gpu\nname: l4\ncuda_total_bytes: 22 GiB\nue8m0_scales: false\narch: sm70\n",
               path, sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 1);
    assert_located(err, path, 5, 7, "'sm70'", "sm75", "sm89", "cdna4", NULL);
    write_file(f->files, "l4.yaml", "kind: gpu\nname: l4\ncuda_total_bytes: 22 GiB\nue8m0_scales: false\narch: sm89\n",
               path, sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 0);
    assert_int_equal(g.arch, GPU_ARCH_SM89);
    assert_int_equal(g.link, GPU_LINK_PCIE);
    /* A preset written before the arches were split still loads, as the generic sm80. */
    write_file(f->files, "old.yaml",
               "kind: gpu\nname: old\ncuda_total_bytes: 40 GiB\nue8m0_scales: false\narch: other\n", path, sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 0);
    assert_int_equal(g.arch, GPU_ARCH_SM80);
    write_file(f->files, "nvl.yaml",
               "kind: gpu\nname: nvl\ncuda_total_bytes: 93 GiB\nue8m0_scales: false\narch: sm90\nlink: nvlink_bridge\n",
               path, sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 0);
    assert_int_equal(g.link, GPU_LINK_NVLINK_BRIDGE);
    write_file(f->files, "nvl.yaml",
               "kind: gpu\nname: nvl\ncuda_total_bytes: 93 GiB\nue8m0_scales: false\narch: sm90\nlink: nvlink\n", path,
               sizeof path);
    assert_int_equal(preset_load_gpu(c, path, &g, err, sizeof err), 1);
    assert_located(err, path, 6, 7, "link", "'nvlink'", "nvswitch", "nvlink_bridge", "mnnvl", "xgmi", "unified", NULL);
    preset_catalog_free(c);
}

/* The interconnect a GPU preset without link: gets. */
static void test_gpu_default_link(void **state)
{
    (void)state;
    for (int a = 0; a < GPU_ARCH_COUNT; a++) {
        bool hgx = a == GPU_ARCH_SM90 || a == GPU_ARCH_SM100 || a == GPU_ARCH_SM103;
        if (engine_gpu_default_link((engine_gpu_arch)a) != (hgx ? GPU_LINK_NVSWITCH : GPU_LINK_PCIE))
            fail_msg("%s: default link %s", engine_gpu_arch_names[a],
                     engine_gpu_link_names[engine_gpu_default_link((engine_gpu_arch)a)]);
    }
}

static void test_user_model_coefficients(void **state)
{
    fixture *f = *state;
    char path[512], err[1024] = "";
    write_file(f->dir, "tiny-moe.yaml",
               "kind: model\n"
               "name: tiny-moe\n"
               "hf_names: acme/Tiny-MoE\n"
               "vocab: 32000\n"
               "hidden: 2048\n"
               "layers: 24\n"
               "context_len: 32768\n"
               "attention: {kind: gqa, heads: 16, kv_heads: 4, head_dim: 128}\n"
               "moe: {num_experts: 64, moe_intermediate: 1024, top_k: 4}\n"
               "coefficients:\n"
               "  lazy_bytes: 1 GiB\n"
               "  act_bytes_per_row: 1.5 MiB\n",
               path, sizeof path);
    write_file(f->dir, "tiny-h100.yaml",
               "kind: deployment\n"
               "name: tiny-h100\n"
               "model: tiny-moe\n"
               "gpu: h100\n"
               "weights_bytes: 10 GiB\n"
               "a2a: none\n"
               "coefficients: {graph_bytes: 1 MiB}\n",
               path, sizeof path);
    write_file(f->dir, "own-model.yaml",
               "kind: model\nname: own-model\nvocab: 1\nhidden: 128\nlayers: 2\ncontext_len: 4096\n"
               "attention: {kind: mla, heads: 8, kv_lora_rank: 64, qk_rope_dim: 16}\n"
               "moe: {num_experts: 8, moe_intermediate: 64, top_k: 2}\n"
               "coefficients: {act_bytes_per_row: 1, lazy_bytes: 2, graph_bytes: 3, out_bytes_per_row: 4,"
               " draft_base_bytes: 5, draft_bytes_per_row: 6}\n",
               path, sizeof path);
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    assert_int_equal(preset_catalog_problem_count(c), 0);

    engine_model m;
    assert_int_equal(preset_load_model(c, "tiny-moe", &m, err, sizeof err), 0);
    assert_int_equal(m.attn_kind, ATTN_GQA);
    assert_int_equal(m.kv_heads, 4);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.full_attn_layers, 24);  /* every layer, by default */
    assert_int_equal(m.dispatch_hidden, 2048); /* = hidden, by default */
    assert_int_equal(m.kv_bytes, 2);
    assert_true(m.coef_borrowed);
    assert_int_equal(m.coef[COEF_LAZY_BYTES], GIB);
    assert_int_equal(m.coef[COEF_ACT_BYTES_PER_ROW], 3 * MIB / 2);
    assert_int_equal(m.coef[COEF_GRAPH_BYTES], 0); /* missing: unknown, not K3's */
    assert_true(m.coef_missing[COEF_GRAPH_BYTES]);
    assert_false(m.coef_missing[COEF_LAZY_BYTES]);

    engine_deployment d;
    assert_int_equal(preset_load_deployment(c, "tiny-h100", &d, err, sizeof err), 0);
    assert_int_equal(d.knobs.context_len, 32768); /* the model's */
    assert_int_equal(d.a2a, A2A_NONE);
    assert_int_equal(d.model.coef[COEF_GRAPH_BYTES], MIB); /* the deployment's override */
    assert_int_equal(d.model.coef[COEF_LAZY_BYTES], GIB);  /* the model's */
    assert_int_equal(d.model.coef[COEF_DRAFT_BASE_BYTES], 0);
    assert_true(d.model.coef_missing[COEF_DRAFT_BASE_BYTES]);
    assert_false(d.model.coef_missing[COEF_GRAPH_BYTES]); /* the deployment gives it */
    assert_true(d.model.coef_borrowed);
    assert_int_equal(d.gpu.cuda_total_bytes, (uint64_t)llround(79.19 * (double)GIB));

    assert_int_equal(preset_load_model(c, "own-model", &m, err, sizeof err), 0);
    assert_false(m.coef_borrowed);
    for (int i = 0; i < COEF_COUNT; i++)
        assert_int_equal(m.coef[i], (uint64_t)i + 1);

    const preset_entry *e = preset_match_hf_name(c, "/ckpt/tiny-moe");
    assert_non_null(e);
    assert_string_equal(e->name, "tiny-moe");
    preset_catalog_free(c);
}

/* ---- Sizes. ---- */

/* vision: a VL preset's tower is in param_count; its parts may not exceed it, and params is
 * required. */
static void test_model_vision(void **state)
{
    fixture *f = *state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    char path[512], err[1024], text[8192];
    engine_model m;
    assert_int_equal(preset_load_model(c, "qwen3-vl-8b", &m, err, sizeof err), 0);
    assert_int_equal(m.vision_params, 575926272);
    assert_int_equal(m.vision_attn_tp_params, 574156800);
    assert_int_equal(m.vision_tp_params, 0);
    engine_model text_only = m;
    text_only.vision_params = text_only.vision_attn_tp_params = 0;
    assert_int_equal(m.param_count, engine_model_param_count(&text_only) + 575926272);

    snprintf(text, sizeof text, "%s", builtin_text("qwen3-vl-8b.yaml"));
    char *tp = strstr(text, "  tp_params: 0");
    assert_non_null(tp);
    int line = 1;
    for (const char *q = text; q < tp; q++)
        line += *q == '\n';
    snprintf(tp, sizeof text - (size_t)(tp - text), "  tp_params: 1769473\n");
    write_file(f->files, "qwen3-vl-8b.yaml", text, path, sizeof path);
    assert_int_equal(preset_load_model(c, path, &m, err, sizeof err), 1);
    assert_located(err, path, line - 2, 3,
                   "vision: attn_tp_params 574156800 + tp_params 1769473 exceed params 575926272", NULL);

    char *params = strstr(text, "  params: 575926272\n");
    assert_non_null(params);
    memmove(params, params + strlen("  params: 575926272\n"), strlen(params + strlen("  params: 575926272\n")) + 1);
    write_file(f->files, "qwen3-vl-8b.yaml", text, path, sizeof path);
    assert_int_equal(preset_load_model(c, path, &m, err, sizeof err), 1);
    if (!strstr(err, "params") || !strstr(err, "vision"))
        fail_msg("expected vision's params named in: %s", err);
    preset_catalog_free(c);
}

static void test_parse_size(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(preset_parse_size("150 GiB", &v), 0);
    assert_int_equal(v, 150 * GIB);
    assert_int_equal(preset_parse_size("25.7 KiB", &v), 0);
    assert_int_equal(v, 26317);
    assert_int_equal(preset_parse_size("4096", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(preset_parse_size("1.5 TiB", &v), 0);
    assert_int_equal(v, (uint64_t)3 << 39);
    assert_int_equal(preset_parse_size("22.5 GiB", &v), 0);
    assert_int_equal(v, 45 * GIB / 2);
    assert_int_equal(preset_parse_size("178.35 GiB", &v), 0);
    assert_int_equal(v, (uint64_t)llround(178.35 * (double)GIB));
    assert_int_equal(preset_parse_size("4.66 MiB", &v), 0);
    assert_int_equal(v, 4886364); /* 4,886,364.16 */
    assert_int_equal(preset_parse_size("512 B", &v), 0);
    assert_int_equal(v, 512);
    assert_int_equal(preset_parse_size("8GiB", &v), 0);
    assert_int_equal(v, 8 * GIB);
    assert_int_equal(preset_parse_size("0 GiB", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(preset_parse_size("18446744073709551615", &v), 0);
    assert_int_equal(v, UINT64_MAX);

    v = 7;
    static const char *const bad[] = {"abc",
                                      "-1 GiB",
                                      "12 parsecs",
                                      "",
                                      "GiB",
                                      "1.5",
                                      "1 GB",
                                      "1.",
                                      ".5 GiB",
                                      "16777216 TiB",
                                      "18446744073709551616",
                                      "1 GiB extra",
                                      "+1 GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (preset_parse_size(bad[i], &v) == 0)
            fail_msg("'%s' was accepted as %llu", bad[i], (unsigned long long)v);
    assert_int_equal(v, 7); /* untouched on failure */
}

/* ---- Bounded inputs (issue 11): nesting refused before libyaml, a lower file cap. ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "kind: model\nname: NAME\nx: " and DEPTH '[' then DEPTH ']', malloc'd. */
static char *deep_flow(const char *name, size_t depth)
{
    char head[128];
    int n = snprintf(head, sizeof head, "kind: model\nname: %s\nx: ", name);
    char *text = malloc((size_t)n + 2 * depth + 2);
    assert_non_null(text);
    memcpy(text, head, (size_t)n);
    memset(text + n, '[', depth);
    memset(text + n + depth, ']', depth);
    memcpy(text + n + 2 * depth, "\n", 2);
    return text;
}

/* One deeply nested user file: refused in milliseconds by the scan (libyaml took 7-17 s at
 * 40,000 levels), reported once, and every other preset still loads. */
static void test_deep_nesting_refused_fast(void **state)
{
    fixture *f = *state;
    char path[512], big[512], block[512], err[1024];
    char *deep = deep_flow("deep", 30000); /* 60 KB: under the cap, so the scan refuses it */
    write_file(f->dir, "deep.yaml", deep, path, sizeof path);
    char *huge = deep_flow("huge", 40000); /* the 80 KB file: over the 64 KiB cap */
    write_file(f->dir, "huge.yaml", huge, big, sizeof big);
    size_t nb = 30000;
    char *dashes = malloc(2 * nb + 16);
    assert_non_null(dashes);
    for (size_t i = 0; i < nb; i++)
        memcpy(dashes + 2 * i, "- ", 2);
    memcpy(dashes + 2 * nb, "x\n", 3);
    write_file(f->dir, "dashes.yaml", dashes, block, sizeof block);

    double t0 = now_s();
    preset_catalog *c = preset_catalog_open();
    double took = now_s() - t0;
    assert_non_null(c);
    if (took > 0.25)
        fail_msg("opening the catalog with three hostile files took %.3f s", took);
    assert_int_equal(preset_catalog_problem_count(c), 3);
    size_t builtins = 0;
    while (preset_builtin_files[builtins].file_name)
        builtins++;
    assert_int_equal(preset_catalog_count(c), builtins); /* every built-in, none of the hostile files */
    assert_int_equal(preset_load_model(c, "deep", &(engine_model){0}, err, sizeof err), 1);
    assert_located(err, path, 3, 11, "nests deeper than 8 levels", "expected a preset", NULL);
    assert_int_equal(preset_load_model(c, "huge", &(engine_model){0}, err, sizeof err), 1);
    assert_located(err, big, 1, 1, "larger than 65536 bytes", NULL);
    assert_int_equal(preset_load_model(c, "dashes", &(engine_model){0}, err, sizeof err), 1);
    assert_located(err, block, 1, 15, "nests deeper than 8 levels", NULL);
    engine_deployment d;
    assert_int_equal(preset_load_deployment(c, "k3-dp16", &d, err, sizeof err), 0);
    preset_catalog_free(c);

    /* By path too, and as fast. */
    t0 = now_s();
    assert_int_equal(preset_load_model(NULL, path, &(engine_model){0}, err, sizeof err), 1);
    took = now_s() - t0;
    if (took > 0.1)
        fail_msg("loading the deep file by path took %.3f s", took);
    free(deep);
    free(huge);
    free(dashes);
}

static void test_nesting_scan(void **state)
{
    (void)state;
    char err[1024];
#define SCAN(text) preset_yaml_check_nesting("t.yaml", text, strlen(text), err, sizeof err)
    /* What presets hold passes, the built-ins included. */
    for (const preset_builtin_file *b = preset_builtin_files; b->file_name; b++)
        assert_int_equal(preset_yaml_check_nesting(b->file_name, b->text, strlen(b->text), err, sizeof err), 0);
    assert_int_equal(SCAN("a: [1, [2, [3]]]\nb: {c: {d: [e]}}\n"), 0);
    assert_int_equal(SCAN("description: 'a [[[[[[[[[[ b'\n"), 0);               /* quoted */
    assert_int_equal(SCAN("description: \"a [[[[[[[[[[ \\\" # b\"\n"), 0);       /* escaped quote */
    assert_int_equal(SCAN("description: see [[[[[[[[[[ here\n"), 0);            /* inside a plain scalar */
    assert_int_equal(SCAN("# [[[[[[[[[[[[\nx: 1 # {{{{{{{{{{{{\n"), 0);           /* comments */
    assert_int_equal(SCAN("description: |\n  [[[[[[[[[[[[\n  {{{{{{{{{\nx: 1\n"), 0); /* a block scalar */
    assert_int_equal(SCAN("a:\n  b:\n    c:\n      d: [1, 2]\n"), 0);
    /* Too deep: flow, block indentation, compact entries, and flow on top of block. */
    assert_int_equal(SCAN("x: [[[[[[[[1]]]]]]]]\n"), -1);
    assert_located(err, "t.yaml", 1, 11, "nests deeper than 8 levels", NULL);
    assert_int_equal(SCAN("a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i: 1\n"), -1);
    assert_located(err, "t.yaml", 9, 9, "nests deeper than 8 levels", NULL);
    assert_int_equal(SCAN("- - - - - - - - - x\n"), -1);
    assert_located(err, "t.yaml", 1, 15, NULL);
    assert_int_equal(SCAN("a:\n  b:\n    c:\n      d: [[[[[1]]]]]\n"), -1);
    assert_located(err, "t.yaml", 4, 14, NULL); /* four mappings and the fifth bracket */
    /* A flow list spread over lines keeps its depth. */
    assert_int_equal(SCAN("x: [[[[\n[[[[\n[1]]]]]]]]]\n"), -1);
    assert_located(err, "t.yaml", 2, 4, NULL);
    /* However the scan reads quotes, no file holds more than 256 flow openers: here it takes the
     * quote in a plain scalar's continuation ("b 'x") for an open string. */
    char many[1200];
    size_t n = (size_t)snprintf(many, sizeof many, "a: b\n  'x\n");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "[");
    snprintf(many + n, sizeof many - n, "\n");
    assert_int_equal(SCAN(many), -1);
    assert_located(err, "t.yaml", 3, 257, "more than 256 '[' and '{'", NULL);
#undef SCAN
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_k3_dp16, setup, teardown),
        cmocka_unit_test_setup_teardown(test_k3_dp2_dcp8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dsv3_has_no_borrowed_coefficients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_catalog_lists_builtins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builtin_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_hf_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_good_deployment_by_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_malformed_yaml, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_unknown_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_wrong_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_knob_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_unknown_model_or_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_missing_key_and_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_no_such_preset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_override_and_broken_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_arch, setup, teardown),
        cmocka_unit_test(test_gpu_default_link),
        cmocka_unit_test_setup_teardown(test_user_model_coefficients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_vision, setup, teardown),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test_setup_teardown(test_deep_nesting_refused_fast, setup, teardown),
        cmocka_unit_test(test_nesting_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
