/* preset_catalog.c — the catalog: the built-in files embedded in the binary and the user's own
 * ($CGPLAN_PRESETS, else $XDG_CONFIG_HOME/cgplan/presets, else ~/.config/cgplan/presets), a user
 * file overriding the built-in of the same stem; the files that do not load; look-ups by name
 * and kind, loading by path, and matching a log's model path against the models' hf_names. */
#include "preset_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A preset is a few hundred bytes (the largest built-in, kimi-k3.yaml, 1.3 KB): 64 KiB is 50
 * times that, room for long comments, and small enough that a file at the cap costs well under a
 * millisecond to refuse or parse (the nesting scan keeps libyaml linear). */
#define PRESET_FILE_MAX ((size_t)64 << 10)
#define PRESET_SUFFIX ".yaml"
#define PRESET_SUFFIX_LEN (sizeof PRESET_SUFFIX - 1)
#define CATALOG_INITIAL_ITEMS 16   /* room for the built-in presets before the first realloc */
#define CATALOG_INITIAL_PROBLEMS 4 /* a broken file is rare */

typedef struct {
    char *name; /* the file's stem ("" when no preset can be named, e.g. an unreadable directory) */
    char *message;
} preset_problem;

struct preset_catalog {
    preset_item *items;
    size_t n_items, cap_items;
    preset_problem *problems;
    size_t n_problems, cap_problems;
};

/* ---- One file. ---- */

/* Reads a whole file. Returns a malloc'd NUL-terminated buffer or NULL with the reason in MSG.
 * Opened O_NONBLOCK and checked for a regular file before a byte is read: fopen of a FIFO named
 * x.yaml in a preset folder blocked every command that loads presets. */
static char *read_file(const char *path, size_t *len, char *msg, size_t msglen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        preset_set_err(msg, msglen, "%s:1:1: cannot open: %s; expected a readable preset file", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        preset_set_err(msg, msglen, "%s:1:1: not a regular file; expected a preset file", path);
        close(fd);
        return NULL;
    }
    char *buf = malloc(PRESET_FILE_MAX + 1);
    if (!buf) {
        preset_set_err(msg, msglen, "%s: out of memory", path);
        close(fd);
        return NULL;
    }
    size_t n = 0;
    bool failed = false;
    while (n <= PRESET_FILE_MAX) { /* one byte past the cap tells a file that is too large */
        ssize_t got = read(fd, buf + n, PRESET_FILE_MAX + 1 - n);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            failed = true;
            break;
        }
        n += (size_t)got;
    }
    close(fd);
    if (failed) {
        preset_set_err(msg, msglen, "%s:1:1: cannot read; expected a readable preset file", path);
        free(buf);
        return NULL;
    }
    if (n > PRESET_FILE_MAX) {
        preset_set_err(msg, msglen,
                       "%s:1:1: the file is larger than %zu bytes; expected a preset (a few hundred bytes of keys)",
                       path, PRESET_FILE_MAX);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* NAME (of length LEN) is something followed by ".yaml". */
static bool has_yaml_suffix(const char *name, size_t len)
{
    return len > PRESET_SUFFIX_LEN && strcmp(name + len - PRESET_SUFFIX_LEN, PRESET_SUFFIX) == 0;
}

/* "dir/k3-dp16.yaml" -> "k3-dp16" into STEM. */
static void path_stem(const char *path, char *stem, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (has_yaml_suffix(base, n))
        n -= PRESET_SUFFIX_LEN;
    snprintf(stem, cap, "%.*s", (int)n, base);
}

/* Reads and parses the file at PATH. Returns a malloc'd item or NULL with the message in MSG. */
static preset_item *load_file(const char *path, char *msg, size_t msglen)
{
    size_t len = 0;
    char *text = read_file(path, &len, msg, msglen);
    if (!text)
        return NULL;
    char stem[ENGINE_TEXT_MAX];
    path_stem(path, stem, sizeof stem);
    preset_item *it = malloc(sizeof *it);
    char *origin = strdup(path);
    if (!it || !origin || preset_parse_text(path, stem, text, len, it, msg, msglen) != 0) {
        if (!it || !origin)
            preset_set_err(msg, msglen, "%s: out of memory", path);
        free(it);
        free(origin);
        free(text);
        return NULL;
    }
    free(text);
    it->origin = origin;
    return it;
}

/* ---- The catalog. ---- */

/* Frees a malloc'd item (one not, or no longer, in the catalog). */
static void free_item(preset_item *it)
{
    if (it) {
        free(it->origin);
        free(it);
    }
}

static void remove_named(preset_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_items; i++)
        if (strcmp(c->items[i].entry.name, name) == 0) {
            free(c->items[i].origin);
            memmove(&c->items[i], &c->items[i + 1], (c->n_items - i - 1) * sizeof c->items[0]);
            c->n_items--;
            break;
        }
    for (size_t i = 0; i < c->n_problems; i++)
        if (name[0] && strcmp(c->problems[i].name, name) == 0) {
            free(c->problems[i].name);
            free(c->problems[i].message);
            memmove(&c->problems[i], &c->problems[i + 1], (c->n_problems - i - 1) * sizeof c->problems[0]);
            c->n_problems--;
            break;
        }
}

/* Takes IT (a malloc'd item) into the catalog, replacing a preset of the same name; on failure
 * (out of memory) IT is freed all the same. */
static int add_item(preset_catalog *c, preset_item *it)
{
    remove_named(c, it->entry.name);
    if (c->n_items == c->cap_items) {
        size_t cap = c->cap_items ? 2 * c->cap_items : CATALOG_INITIAL_ITEMS;
        preset_item *items = realloc(c->items, cap * sizeof *items);
        if (!items) {
            free_item(it);
            return -1;
        }
        c->items = items;
        c->cap_items = cap;
    }
    c->items[c->n_items++] = *it;
    free(it);
    return 0;
}

/* A file that does not load: its name now means "this problem" (it hides a built-in of the
 * same name rather than silently falling back to it). */
static int add_problem(preset_catalog *c, const char *name, const char *message)
{
    remove_named(c, name);
    if (c->n_problems == c->cap_problems) {
        size_t cap = c->cap_problems ? 2 * c->cap_problems : CATALOG_INITIAL_PROBLEMS;
        preset_problem *problems = realloc(c->problems, cap * sizeof *problems);
        if (!problems)
            return -1;
        c->problems = problems;
        c->cap_problems = cap;
    }
    char *n = strdup(name), *m = strdup(message);
    if (!n || !m) {
        free(n);
        free(m);
        return -1;
    }
    c->problems[c->n_problems].name = n;
    c->problems[c->n_problems].message = m;
    c->n_problems++;
    return 0;
}

static int add_builtin(preset_catalog *c, const preset_builtin_file *file)
{
    char origin[ENGINE_TEXT_MAX], stem[ENGINE_TEXT_MAX], msg[PRESET_MSG_MAX];
    snprintf(origin, sizeof origin, "builtin:%s", file->file_name);
    path_stem(file->file_name, stem, sizeof stem);
    preset_item *it = malloc(sizeof *it);
    if (!it)
        return -1;
    if (preset_parse_text(origin, stem, file->text, strlen(file->text), it, msg, sizeof msg) != 0) {
        free(it);
        return add_problem(c, stem, msg);
    }
    it->origin = strdup(origin);
    if (!it->origin) {
        free(it);
        return -1;
    }
    return add_item(c, it);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void preset_user_dir(char *buf, size_t len)
{
    const char *env = getenv("CGPLAN_PRESETS");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else if (xdg && *xdg == '/') /* the XDG spec: a relative path is invalid and ignored */
        snprintf(buf, len, "%s/cgplan/presets", xdg);
    else if (home && *home)
        snprintf(buf, len, "%s/.config/cgplan/presets", home);
    else
        buf[0] = '\0';
}

static int add_user_files(preset_catalog *c)
{
    char dir[PATH_MAX];
    preset_user_dir(dir, sizeof dir);
    if (!dir[0])
        return 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        if (errno == ENOENT)
            return 0; /* no user presets: fine */
        char msg[PRESET_MSG_MAX];
        preset_set_err(msg, sizeof msg, "%s: cannot read the preset directory: %s; expected a readable directory", dir,
                       strerror(errno));
        return add_problem(c, "", msg);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || !has_yaml_suffix(e->d_name, len))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : CATALOG_INITIAL_ITEMS;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc == 0 && n)
        qsort(names, n, sizeof *names, compare_names); /* readdir's order is arbitrary */
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[2 * PATH_MAX], msg[PRESET_MSG_MAX], stem[ENGINE_TEXT_MAX]; /* directory, '/', name */
        snprintf(path, sizeof path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        path_stem(names[i], stem, sizeof stem);
        preset_item *it = load_file(path, msg, sizeof msg);
        rc = it ? add_item(c, it) : add_problem(c, stem, msg);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

preset_catalog *preset_catalog_open(void)
{
    preset_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (const preset_builtin_file *f = preset_builtin_files; f->file_name; f++)
        if (add_builtin(c, f) != 0) {
            preset_catalog_free(c);
            return NULL;
        }
    if (add_user_files(c) != 0) {
        preset_catalog_free(c);
        return NULL;
    }
    return c;
}

void preset_catalog_free(preset_catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_items; i++)
        free(c->items[i].origin);
    for (size_t i = 0; i < c->n_problems; i++) {
        free(c->problems[i].name);
        free(c->problems[i].message);
    }
    free(c->items);
    free(c->problems);
    free(c);
}

size_t preset_catalog_count(const preset_catalog *c)
{
    return c ? c->n_items : 0;
}

const preset_entry *preset_catalog_get(const preset_catalog *c, size_t i)
{
    return c && i < c->n_items ? &c->items[i].entry : NULL;
}

size_t preset_catalog_problem_count(const preset_catalog *c)
{
    return c ? c->n_problems : 0;
}

const char *preset_catalog_problem(const preset_catalog *c, size_t i)
{
    return c && i < c->n_problems ? c->problems[i].message : NULL;
}

static const preset_item *find_item(const preset_catalog *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n_items; i++)
        if (strcmp(c->items[i].entry.name, name) == 0)
            return &c->items[i];
    return NULL;
}

static const preset_problem *find_problem(const preset_catalog *c, const char *name)
{
    for (size_t i = 0; c && name && *name && i < c->n_problems; i++)
        if (strcmp(c->problems[i].name, name) == 0)
            return &c->problems[i];
    return NULL;
}

const preset_entry *preset_catalog_find(const preset_catalog *c, const char *name, preset_kind kind)
{
    const preset_item *it = find_item(c, name);
    return it && it->entry.kind == kind ? &it->entry : NULL;
}

/* "a, b, c": the names of every preset of KIND. */
static void list_kind(const preset_catalog *c, preset_kind kind, char *buf, size_t len)
{
    /* whole names only: past the room, how many more and where to see them (90 models overflow a
     * message line) */
    static const char more_fmt[] = ", and %zu more (cgplan presets lists them)";
    size_t used = 0, more = 0, keep = len > sizeof more_fmt + 8 ? len - sizeof more_fmt - 8 : 0;
    buf[0] = '\0';
    for (size_t i = 0; c && i < c->n_items; i++)
        if (c->items[i].entry.kind == kind) {
            const char *name = c->items[i].entry.name;
            size_t need = strlen(name) + (used ? 2 : 0);
            if (more || used + need >= keep) {
                more++;
                continue;
            }
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
            used += need;
        }
    if (more && used < len)
        snprintf(buf + used, len - used, more_fmt, more);
    if (!buf[0])
        snprintf(buf, len, "(none)");
}

/* Finds NAME of KIND: 0; 1 when its file does not load (ERR: that file's message); 2 when there
 * is none (ERR lists the presets of that kind). */
static int lookup(const preset_catalog *c, const char *name, preset_kind kind, const preset_item **out, char *err,
                  size_t errlen)
{
    const preset_problem *problem = find_problem(c, name);
    if (problem) {
        preset_copy_text(err, errlen, problem->message);
        return 1;
    }
    const preset_item *it = find_item(c, name);
    if (it && it->entry.kind == kind) {
        *out = it;
        return 0;
    }
    char list[PRESET_LIST_MAX], other[ENGINE_TEXT_MAX] = "";
    list_kind(c, kind, list, sizeof list);
    if (it)
        snprintf(other, sizeof other, " ('%s' is a %s preset)", name, preset_kind_names[it->entry.kind]);
    preset_set_err(err, errlen, "no %s preset named '%s'%s; expected one of: %s", preset_kind_names[kind], name, other,
                   list);
    return 2;
}

static bool looks_like_path(const char *s)
{
    return strchr(s, '/') || has_yaml_suffix(s, strlen(s));
}

/* Loads NAME_OR_PATH of KIND: a catalog item, or (a path) a file parsed into *OWNED which the
 * caller frees. */
static int find_or_load(const preset_catalog *c, const char *name_or_path, preset_kind kind, const preset_item **out,
                        preset_item **owned, char *err, size_t errlen)
{
    *owned = NULL;
    if (!name_or_path || !*name_or_path) {
        char list[PRESET_LIST_MAX];
        list_kind(c, kind, list, sizeof list);
        preset_set_err(err, errlen, "no %s preset given; expected one of: %s", preset_kind_names[kind], list);
        return 2;
    }
    if (!looks_like_path(name_or_path))
        return lookup(c, name_or_path, kind, out, err, errlen);
    char msg[PRESET_MSG_MAX];
    preset_item *it = load_file(name_or_path, msg, sizeof msg);
    if (!it) {
        preset_copy_text(err, errlen, msg);
        return 1;
    }
    if (it->entry.kind != kind) {
        preset_set_err(err, errlen, "%s:%zu:%zu: kind: %s; expected a %s preset here", it->origin, it->kind_mark.line,
                       it->kind_mark.col, preset_kind_names[it->entry.kind], preset_kind_names[kind]);
        free_item(it);
        return 1;
    }
    *owned = it;
    *out = it;
    return 0;
}

/* A deployment's model or GPU: errors stand where the deployment names it. */
static int resolve_ref(const preset_catalog *c, const preset_item *dep, const char *name, preset_mark at,
                       preset_kind kind, const preset_item **out, char *err, size_t errlen)
{
    char why[PRESET_MSG_MAX];
    int rc = lookup(c, name, kind, out, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == 1)
        preset_set_err(err, errlen, "%s:%zu:%zu: %s '%s' does not load: %s", dep->origin, at.line, at.col,
                       preset_kind_names[kind], name, why);
    else
        preset_set_err(err, errlen, "%s:%zu:%zu: %s", dep->origin, at.line, at.col, why);
    return 1; /* the deployment's file is what is wrong */
}

int preset_load_deployment(const preset_catalog *c, const char *name_or_path, engine_deployment *out, char *err,
                           size_t errlen)
{
    const preset_item *it = NULL, *model = NULL, *gpu = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name_or_path, PRESET_DEPLOYMENT, &it, &owned, err, errlen);
    if (rc != 0)
        return rc;
    const parsed_deployment *dep = &it->u.dep;
    if (resolve_ref(c, it, dep->model, dep->model_mark, PRESET_MODEL, &model, err, errlen) != 0 ||
        resolve_ref(c, it, dep->gpu, dep->gpu_mark, PRESET_GPU, &gpu, err, errlen) != 0) {
        free_item(owned);
        return 1;
    }
    preset_assemble_deployment(it, model, gpu, out);
    free_item(owned);
    /* The backstop: nothing out of the engine's bounds reaches an estimate. */
    char why[PRESET_MSG_MAX];
    if (engine_deployment_check(out, why, sizeof why) != 0) {
        preset_set_err(err, errlen, "%s: %s", name_or_path, why);
        return 1;
    }
    return 0;
}

int preset_load_gpu(const preset_catalog *c, const char *name, engine_gpu *out, char *err, size_t errlen)
{
    const preset_item *it = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name, PRESET_GPU, &it, &owned, err, errlen);
    if (rc == 0)
        *out = it->u.gpu;
    free_item(owned);
    return rc;
}

int preset_load_model(const preset_catalog *c, const char *name, engine_model *out, char *err, size_t errlen)
{
    const preset_item *it = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name, PRESET_MODEL, &it, &owned, err, errlen);
    if (rc == 0)
        *out = it->u.model;
    free_item(owned);
    char why[PRESET_MSG_MAX];
    if (rc == 0 && engine_model_check(out, why, sizeof why) != 0) {
        preset_set_err(err, errlen, "%s: %s", name, why);
        return 1;
    }
    return rc;
}

/* The last path component of S without trailing slashes, as a (pointer, length) pair. */
static const char *last_component(const char *s, size_t *len)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && s[start - 1] != '/')
        start--;
    *len = n - start;
    return s + start;
}

const preset_entry *preset_match_hf_name(const preset_catalog *c, const char *model_path)
{
    if (!c || !model_path || !*model_path)
        return NULL;
    /* An exact (case-insensitive) name first, so "org/Model" never loses to another org's Model. */
    for (size_t i = 0; i < c->n_items; i++) {
        const preset_item *it = &c->items[i];
        if (it->entry.kind != PRESET_MODEL)
            continue;
        for (int j = 0; j < it->u.model.n_hf_names; j++)
            if (strcasecmp(it->u.model.hf_names[j], model_path) == 0)
                return &it->entry;
    }
    size_t plen;
    const char *pbase = last_component(model_path, &plen);
    if (plen == 0)
        return NULL;
    for (size_t i = 0; i < c->n_items; i++) {
        const preset_item *it = &c->items[i];
        if (it->entry.kind != PRESET_MODEL)
            continue;
        for (int j = 0; j < it->u.model.n_hf_names; j++) {
            size_t hlen;
            const char *hbase = last_component(it->u.model.hf_names[j], &hlen);
            if (hlen == plen && strncasecmp(hbase, pbase, plen) == 0)
                return &it->entry;
        }
    }
    return NULL;
}
