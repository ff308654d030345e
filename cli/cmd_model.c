/* cmd_model.c — `cgplan model import PATH [--name NAME] [--hf-id ID]`: a model preset from a
 * Hugging Face config.json, written into the user preset directory (the catalog's: $CGPLAN_PRESETS, else
 * $XDG_CONFIG_HOME/cgplan/presets, else ~/.config/cgplan/presets). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "model_import.h"

#define MODEL_USAGE "cgplan model import PATH/config.json [--name NAME] [--hf-id OWNER/NAME]"

/* mkdir -p DIR. */
static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static const preset_builtin_file *builtin_named(const char *name)
{
    size_t n = strlen(name);
    for (const preset_builtin_file *f = preset_builtin_files; f->file_name; f++)
        if (strncmp(f->file_name, name, n) == 0 && strcmp(f->file_name + n, ".yaml") == 0)
            return f;
    return NULL;
}

static int model_import(const char *path, const char *name, const char *hf_id)
{
    engine_model m;
    char err[ENGINE_TEXT_MAX * 4];
    /* --name is checked as given, before anything reads it into a buffer that would cut it: a
     * cut 64-character name replaced the user preset of its first 63. */
    if (name && preset_model_check_name(name, err, sizeof err) != 0) {
        cli_error("model import: --name: %s", err);
        return EXIT_USAGE;
    }
    if (preset_model_from_config_json(path, &m, err, sizeof err) != 0) {
        cli_error("model import: %s", err);
        return EXIT_WORK;
    }
    if (hf_id && preset_model_set_hf_id(&m, hf_id, err, sizeof err) != 0) {
        cli_error("model import: --hf-id: %s", err);
        return EXIT_USAGE;
    }
    if (name)
        snprintf(m.name, sizeof m.name, "%s", name);
    else if (!m.name[0]) {
        cli_error("model import: %s: no name can be made from the path; give --name NAME", path);
        return EXIT_USAGE;
    }
    if (preset_model_check_name(m.name, err, sizeof err) != 0) {
        cli_error("model import: %s", err);
        return EXIT_USAGE;
    }
    char dir[PATH_MAX], file[PATH_MAX + ENGINE_NAME_MAX + 8], tmp[sizeof file + 8];
    preset_user_dir(dir, sizeof dir);
    if (!dir[0]) {
        cli_error("model import: no user preset directory: set $CGPLAN_PRESETS, $XDG_CONFIG_HOME or $HOME");
        return EXIT_WORK;
    }
    if (make_dirs(dir) != 0) {
        cli_error("model import: cannot create %s: %s (set $CGPLAN_PRESETS to a writable directory)", dir,
                  strerror(errno));
        return EXIT_WORK;
    }
    snprintf(file, sizeof file, "%s/%s.yaml", dir, m.name);
    snprintf(tmp, sizeof tmp, "%s.tmp", file);

    /* A built-in preset of another kind keeps its name: a model named like a GPU would hide it
     * from every deployment. */
    const preset_builtin_file *builtin = builtin_named(m.name);
    preset_catalog *cat = preset_catalog_open();
    if (!cat) {
        cli_error("model import: out of memory");
        return EXIT_WORK;
    }
    if (builtin && !strstr(builtin->text, "kind: model")) {
        cli_error("model import: '%s' is a built-in preset of another kind; give --name NAME", m.name);
        preset_catalog_free(cat);
        return EXIT_USAGE;
    }
    bool replaced = access(file, F_OK) == 0;

    FILE *f = fopen(tmp, "w");
    int rc = f ? preset_model_write_yaml(f, &m, path) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0 || rename(tmp, file) != 0) {
        cli_error("model import: cannot write %s: %s", file, strerror(errno));
        unlink(tmp);
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    /* The file must load as any preset does; a failure here is cgplan's bug, not the user's. */
    engine_model back;
    if (preset_load_model(cat, file, &back, err, sizeof err) != 0) {
        cli_error("model import: the written preset does not load (please report): %s", err);
        unlink(file);
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    if (replaced)
        cli_error("model import: replaced the user preset '%s' (%s)", m.name, file);
    if (builtin)
        cli_error("model import: '%s' shadows the built-in preset of that name (a user preset wins by name; "
                  "give --name to keep both)",
                  m.name);
    printf("%s: model %s (%s, %.1fB parameters)\n", file, m.name, m.architecture, (double)m.param_count / 1e9);
    preset_catalog_free(cat);
    return EXIT_OK;
}

int cmd_model(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "import") != 0) {
        cli_error("model: expected 'import' (usage: %s)", MODEL_USAGE);
        return EXIT_USAGE;
    }
    const char *path = NULL, *name = NULL, *hf_id = NULL;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--name") == 0 || strcmp(a, "--hf-id") == 0) {
            if (i + 1 >= argc) {
                cli_error("model import: %s needs a value", a);
                return EXIT_USAGE;
            }
            if (strcmp(a, "--name") == 0)
                name = argv[++i];
            else
                hf_id = argv[++i];
        } else if (strncmp(a, "--name=", 7) == 0) {
            name = a + 7;
        } else if (strncmp(a, "--hf-id=", 8) == 0) {
            hf_id = a + 8;
        } else if (strncmp(a, "--", 2) == 0) {
            cli_error("model import: unknown option '%s' (usage: %s)", a, MODEL_USAGE);
            return EXIT_USAGE;
        } else if (path) {
            cli_error("model import: one config at a time; got '%s' and '%s'", path, a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        cli_error("model import: expected the path of a config.json (usage: %s)", MODEL_USAGE);
        return EXIT_USAGE;
    }
    return model_import(path, name, hf_id);
}
