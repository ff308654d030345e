/* fuzz_config.c — a Hugging Face config.json through the importer `cgplan model import` and
 * `--model CONFIG.json` use (presets/model_import.c, preset_model_from_config_json), the input
 * written to a file of its own (the importer reads a path, and a sidecar beside it). Either it
 * refuses, with a one-line message, or the model it gives passes engine_model_check, its preset
 * (preset_model_write_yaml) loads back through the preset loader as the same kind and name, that
 * model passes the check too, and writing it again gives the same YAML (nothing is lost or
 * changed by the round trip). */
#define _GNU_SOURCE /* open_memstream */
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "model_import.h"
#include "preset_internal.h"

static char dir[] = "/tmp/cgplan-fuzz-config-XXXXXX", path[256];

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp failed");
    snprintf(path, sizeof path, "%s/fuzz.json", dir); /* no fuzz.hf_quant_config.json beside it */
    atexit(remove_dir);
    return 0;
}

/* M's preset text, malloc'd, into *TEXT / *LEN. */
static void write_yaml(const engine_model *m, char **text, size_t *len)
{
    FILE *f = open_memstream(text, len);
    FUZZ_CHECK(f, "open_memstream failed");
    FUZZ_CHECK(preset_model_write_yaml(f, m, "fuzz.json") == 0, "preset_model_write_yaml failed");
    FUZZ_CHECK(fclose(f) == 0, "writing the preset failed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static engine_model m;
    static preset_item it;
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "writing %s failed", path);
    char err[1024] = "";
    if (preset_model_from_config_json(path, &m, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "a refusal that is not one line: '%s'", err);
        return 0;
    }
    FUZZ_CHECK(strcmp(m.name, "fuzz") == 0, "named '%s', not from the file's stem", m.name);
    FUZZ_CHECK(engine_model_check(&m, err, sizeof err) == 0, "imported, but engine_model_check refuses it: %s", err);
    char *yaml = NULL, *again = NULL;
    size_t len = 0, again_len = 0;
    write_yaml(&m, &yaml, &len);
    char msg[PRESET_MSG_MAX] = "";
    FUZZ_CHECK(preset_parse_text("fuzz.yaml", m.name, yaml, len, &it, msg, sizeof msg) == 0,
               "its preset does not load back: %s\n%s", msg, yaml);
    FUZZ_CHECK(it.entry.kind == PRESET_MODEL && strcmp(it.entry.name, m.name) == 0,
               "its preset loads back as another kind or name\n%s", yaml);
    FUZZ_CHECK(engine_model_check(&it.u.model, err, sizeof err) == 0, "its preset loads back refused: %s\n%s", err,
               yaml);
    write_yaml(&it.u.model, &again, &again_len);
    FUZZ_CHECK(again_len == len && memcmp(again, yaml, len) == 0, "the preset changes through a load:\n%s\n--\n%s",
               yaml, again);
    free(yaml);
    free(again);
    return 0;
}
